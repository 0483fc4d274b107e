"""Recording a serve session: one cassette for all its turns, each turn its own part.

The session's gateway serves every turn, so one recorder sits under its upstream client for
the whole session. Which turn a call belongs to is the lease the proxy forwarded it for
(:data:`holon_core.gateway.leases.CURRENT`: each turn holds its own, with its own meter),
so turns side by side are told apart. When a turn ends its record becomes a part (what ran,
how it ended, its tool calls, its ``diff.patch`` in the body store); when the session ends
the parts are named by their response ids and chained by ``previous_response_id`` (read from
each turn's ``turn.json``), and the cassette is written once.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from holon_core.cassette.format import CassetteError, CassetteInfo
from holon_core.cassette.record import Recorder
from holon_core.cassette.writer import write_cassette
from holon_core.gateway.leases import CURRENT


@dataclass
class SessionRecording:
    """The cassette of one serve session, written by :meth:`write` when it ends."""

    target: Path
    recorder: Recorder
    #: id(the turn's meter) -> the turn's key (its output dir, until turn.json names it)
    turns: dict[int, str] = field(default_factory=dict)
    parts: list[tuple[str, CassetteInfo, str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.recorder.part_of = self._part_of

    def _part_of(self) -> str | None:
        lease = CURRENT.get()
        return None if lease is None else self.turns.get(id(lease.meter))

    def open_turn(self, meter: object, key: str) -> None:
        with self.lock:
            self.turns[id(meter)] = key

    def close_turn(self, key: str, info: CassetteInfo, diff: bytes) -> None:
        """The turn's record (``calls`` not set yet) and its diff.patch."""
        digest = self.recorder.store.put(self.recorder.scrubber.data(diff))
        with self.lock:
            self.parts.append((key, info, digest))

    def write(self) -> CassetteInfo:
        """Write the session's cassette; CassetteError when there is nothing or a secret."""
        with self.lock:
            parts = list(self.parts)
        if not parts:
            raise CassetteError("no cassette was written: the session ran no turn")
        ids = {key: _turn_ids(Path(key)) for key, _, _ in parts}
        calls = [
            call.model_copy(update={"part": ids[call.part]["id"]}) if call.part in ids else call
            for call in self.recorder.ordered()
        ]
        records = [_part(ids[key], info, digest, calls) for key, info, digest in parts]
        last = parts[-1][1]
        first = parts[0][1]
        info = last.model_copy(
            update={
                "spec": first.spec,
                "input": first.input,
                "baseline": first.baseline,
                "tool_calls": [t for _, part, _ in parts for t in part.tool_calls],
                "calls": len(calls),
                "parts": records,
            }
        )
        diff = self.recorder.store.get(parts[-1][2])
        write_cassette(
            self.target,
            info=info,
            calls=calls,
            store=self.recorder.store,
            diff=diff,
            scrubber=self.recorder.scrubber,
            split_secrets=self.recorder.split_secrets,
        )
        return info


def _turn_ids(output: Path) -> dict[str, Any]:
    """A turn's ids from the ``turn.json`` serve wrote in its output dir."""
    try:
        record = json.loads((output / "turn.json").read_text())
    except (OSError, ValueError):
        record = {}
    return {
        "id": record.get("response_id") or output.name,
        "previous_response_id": record.get("previous_response_id"),
        "turn_id": record.get("turn_id"),
        "session_id": record.get("session_id"),
    }


def _part(ids: dict[str, Any], info: CassetteInfo, digest: str, calls: list[Any]) -> dict[str, Any]:
    return {
        **ids,
        "outcome": info.outcome,
        "reason": info.reason,
        "error": info.error,
        "spec": info.spec,
        "tool_calls": [t.model_dump(mode="json") for t in info.tool_calls],
        "files_changed": info.files_changed,
        "diff_sha256": digest,
        "calls": sum(1 for call in calls if call.part == ids["id"]),
    }
