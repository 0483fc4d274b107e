"""What ``holon cassette list`` and ``show`` print: cassettes found under a directory, and one
cassette's calls, as rows (the CLI lays them out as a table or JSON)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from holon_core.cassette.format import (
    INFO_FILE,
    Cassette,
    CassetteError,
    RecordedCall,
    read_cassette,
)


@dataclass(frozen=True)
class Listed:
    """One cassette found by :func:`find_cassettes`, or why it could not be read."""

    path: Path
    cassette: Cassette | None
    error: str | None = None

    def row(self, base: Path) -> dict[str, Any]:
        where = self.path.relative_to(base).as_posix() if self.path != base else "."
        if self.cassette is None:
            return {"path": where, "error": self.error}
        info = self.cassette.info
        return {
            "path": where,
            "engine": info.engine.name,
            "engine_version": info.engine.version,
            "model": info.model,
            "outcome": info.outcome,
            "reason": info.reason,
            "calls": len(self.cassette.calls),
            "bytes": self.cassette.size_bytes(),
            "created": info.created,
        }


def find_cassettes(root: Path) -> Iterator[Listed]:
    """Every cassette at or under ``root`` (a directory holding ``cassette.json``), in path
    order; a cassette's own ``bodies/`` is not searched, links are not followed."""
    for current, dirs, files in os.walk(root):
        dirs.sort()
        here = Path(current)
        if INFO_FILE in files:
            dirs.clear()  # a cassette holds no other cassette
            try:
                yield Listed(here, read_cassette(here))
            except CassetteError as exc:
                yield Listed(here, None, str(exc))


def call_row(call: RecordedCall) -> dict[str, Any]:
    """One call as ``show`` prints it."""
    if call.events is not None:
        answer = f"{len(call.events)} events"
    elif call.response is not None:
        answer = f"{call.response.size} B"
    else:
        answer = "-"
    return {
        "seq": call.seq,
        "part": call.part,
        "kind": call.kind,
        "request": f"{call.method} {call.path}" + (f"?{call.query}" if call.query else ""),
        "request_bytes": call.request.size,
        "status": call.status,
        "answer": answer,
        "started_ms": call.started_ms,
        "total_ms": call.total_ms,
        "attempt": call.attempt,
        "error": call.error,
    }


def human_size(size: int) -> str:
    value = float(size)
    for unit in ("B", "KiB", "MiB"):
        if value < 1024 or unit == "MiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GiB"  # pragma: no cover - the loop returns
