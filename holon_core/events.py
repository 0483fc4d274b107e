"""Normalized events: every engine's stream becomes these lines in ``evidence/events.ndjson``.

A plain dataclass rather than a pydantic model: events are built once per engine line, so
they stay cheap, and adapters can import them without pulling pydantic onto the probe path.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

EventType = Literal[
    "phase",  # a pipeline phase started (preflight, baseline, launch, ...)
    "session",  # the engine announced a session (id, model, tools, skills)
    "message",  # assistant text
    "tool_call",  # the engine called a tool
    "tool_result",  # a tool finished (status ok/error)
    "retry",  # the engine is retrying a model request
    "error",  # the engine reported an error
    "usage",  # token usage update
    "result",  # the engine's terminal event
    "stderr",  # a line the engine wrote to stderr
]
EVENT_TYPES: tuple[str, ...] = EventType.__args__  # type: ignore[attr-defined]


@dataclass(slots=True)
class Event:
    """One normalized event; ``data`` carries the type-specific fields."""

    type: EventType
    text: str | None = None
    tool: str | None = None
    tool_id: str | None = None
    status: Literal["ok", "error"] | None = None
    data: dict[str, Any] = field(default_factory=dict)
    seq: int = 0
    ts: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"seq": self.seq, "ts": round(self.ts, 3), "type": self.type}
        for key in ("text", "tool", "tool_id", "status"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        if self.data:
            out["data"] = self.data
        return out

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, default=str)
