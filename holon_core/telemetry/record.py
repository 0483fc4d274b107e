"""The parts of a run's record the spans are built from, read as untrusted files.

The output dir is one the engine could write: ``evidence`` is opened without following a
link, each file with :func:`holon_core.untrusted.files.read_regular` (no link, no FIFO, a size
cap), so a planted link or an endless file cannot make holon read, or export, anything else.
A file that is missing or damaged gives no spans of its kind, never an error.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from holon_core.untrusted.json_files import read_json_object, read_ndjson

#: Caps on what is read: the manifest, and each ndjson file (events.ndjson itself is capped
#: at 16 MiB by holon; beyond the cap, the lines read so far count).
MANIFEST_LIMIT = 4 * 1024 * 1024
NDJSON_LIMIT = 32 * 1024 * 1024
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


@dataclass
class SpanSources:
    """The three files a run's spans are built from (report/load.py's ``RunRecord`` is the
    report's fuller read of the same record)."""

    manifest: dict[str, Any] = field(default_factory=dict)
    events: list[dict[str, Any]] = field(default_factory=list)
    model_calls: list[dict[str, Any]] = field(default_factory=list)


def read_record(output: Path) -> SpanSources:
    """``manifest.json``, ``evidence/events.ndjson`` and ``evidence/model-calls.ndjson``."""
    record = SpanSources()
    with _opened(str(output)) as out_fd:
        if out_fd is None:
            return record
        record.manifest = read_json_object("manifest.json", MANIFEST_LIMIT, dir_fd=out_fd) or {}
        with _opened("evidence", out_fd) as evidence:
            if evidence is not None:
                record.events, _ = read_ndjson("events.ndjson", NDJSON_LIMIT, dir_fd=evidence)
                record.model_calls, _ = read_ndjson(
                    "model-calls.ndjson", NDJSON_LIMIT, dir_fd=evidence
                )
    return record


@contextlib.contextmanager
def _opened(path: str, dir_fd: int | None = None) -> Iterator[int | None]:
    try:
        fd = os.open(path, _DIR_FLAGS, dir_fd=dir_fd)
    except OSError:
        yield None
        return
    try:
        yield fd
    finally:
        os.close(fd)
