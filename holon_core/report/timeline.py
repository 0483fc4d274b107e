"""The conversation as steps: normalized events (``evidence/events.ndjson``) paired up.

A tool call and its result (matched by ``tool_id``; a later result with ``data.amended``
replaces the first, as the events module says) become one :class:`ToolStep`; assistant
text, errors, retries and holon's notes become :class:`Said`; consecutive stderr lines are
grouped. Phases are the pipeline's, not the conversation's, and are left out.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from holon_core.untrusted.json_files import integer, obj

#: Steps shown; the rest is counted and left to evidence/events.ndjson.
MAX_STEPS = 2_000


@dataclass
class ToolStep:
    tool: str
    tool_id: str
    call: dict[str, Any]
    result: dict[str, Any] | None = None
    status: str | None = None
    ts: float | None = None
    #: When its result came (the run's clock), and the room's network attempts it made.
    end_ts: float | None = None
    network: list[dict[str, Any]] = field(default_factory=list)

    @property
    def denied(self) -> int:
        return sum(1 for attempt in self.network if attempt.get("allowed") is not True)

    @property
    def command(self) -> str | None:
        found = self.call.get("command")
        if found is None:
            found = obj(self.call.get("input")).get("command")
        if isinstance(found, list):
            found = " ".join(str(part) for part in found)
        return str(found) if found is not None else None

    @property
    def subject(self) -> str:
        """What the call acted on, in one line: the command, else a path, else its input."""
        if self.command is not None:
            return self.command
        given = obj(self.call.get("input")) or self.call
        for key in ("file_path", "path", "pattern", "query", "url", "name", "description"):
            if isinstance(given.get(key), str):
                return str(given[key])
        return json.dumps(given, ensure_ascii=False, default=str) if given else ""

    @property
    def exit_code(self) -> int | None:
        code = (self.result or {}).get("exit_code")
        if code is None:
            code = self.call.get("exit_code")
        return integer(code)

    @property
    def output(self) -> str:
        result = self.result or {}
        for key in ("output", "aggregated_output"):
            if isinstance(result.get(key), str):
                return str(result[key])
        return ""

    @property
    def error(self) -> str | None:
        error = (self.result or {}).get("error")
        if isinstance(error, dict):
            return str(error.get("message") or error.get("type") or "")
        return str(error) if isinstance(error, str) else None

    @property
    def failed(self) -> bool:
        return self.status == "error"


@dataclass
class Said:
    kind: str  # message, error, retry, note, stderr, result
    text: str
    ts: float | None = None
    lines: list[str] = field(default_factory=list)  # stderr: the grouped lines


Step = ToolStep | Said


@dataclass
class Timeline:
    steps: list[Step]
    left_out: int = 0


#: A tool call's event may reach holon a little after its first connection does (the
#: engine's output waits in a pipe while the proxy answers): a call's window opens this early.
CALL_LEAD = 0.25


def build(events: list[dict[str, Any]], network: Sequence[dict[str, Any]] = ()) -> Timeline:
    steps: list[Step] = []
    tools: dict[str, ToolStep] = {}
    for event in events:
        kind = event.get("type")
        data = obj(event.get("data"))
        ts = event.get("ts") if isinstance(event.get("ts"), int | float) else None
        text = str(event.get("text") or "")
        if kind == "tool_call":
            step = ToolStep(str(event.get("tool") or "tool"), str(event.get("tool_id")), data)
            step.ts = ts
            tools[step.tool_id] = step
            steps.append(step)
        elif kind == "tool_result":
            _result(steps, tools, event, data)
        elif kind == "stderr" and text:
            _stderr(steps, text, ts)
        elif kind in ("message", "error", "retry", "note") and text:
            steps.append(Said(str(kind), text, ts))
        elif kind == "result" and text and not _repeats_last_message(steps, text):
            steps.append(Said("result", text, ts))
    _attribute(steps, network)
    left_out = max(0, len(steps) - MAX_STEPS)
    return Timeline(steps[:MAX_STEPS], left_out)


def _attribute(steps: list[Step], network: Sequence[dict[str, Any]]) -> None:
    """Put each network attempt (``evidence/network.ndjson``) under the tool call that was
    running when it began, where exactly one was (two calls side by side, or none: it stays
    only in the report's network section). A call whose event came just after the attempt
    (within :data:`CALL_LEAD`) counts when no call was running."""
    calls = [(s.ts, s) for s in steps if isinstance(s, ToolStep) and s.ts is not None]
    for attempt in network:
        at = attempt.get("ts")
        if not isinstance(at, int | float):
            continue
        running = [c for began, c in calls if began <= at and (c.end_ts is None or at <= c.end_ts)]
        if not running:
            running = [c for began, c in calls if began - CALL_LEAD <= at < began]
        if len(running) == 1:
            running[0].network.append(attempt)


def _result(
    steps: list[Step], tools: dict[str, ToolStep], event: dict[str, Any], data: dict[str, Any]
) -> None:
    tool_id = str(event.get("tool_id"))
    step = tools.get(tool_id)
    if step is None:  # a result without its call: shown on its own
        step = ToolStep(str(event.get("tool") or "tool"), tool_id, {})
        tools[tool_id] = step
        steps.append(step)
    if step.result is None or data.get("amended") or not step.result:
        step.result = data
        ts = event.get("ts")
        step.end_ts = ts if isinstance(ts, int | float) else None
        status = event.get("status")
        step.status = status if isinstance(status, str) else None


def _stderr(steps: list[Step], text: str, ts: float | None) -> None:
    last = steps[-1] if steps else None
    if isinstance(last, Said) and last.kind == "stderr":
        last.lines.append(text)
    else:
        steps.append(Said("stderr", "", ts, [text]))


def _repeats_last_message(steps: list[Step], text: str) -> bool:
    said = [s for s in steps if isinstance(s, Said) and s.kind == "message"]
    return bool(said) and said[-1].text.strip() == text.strip()
