"""Normalized events -> ATIF steps, one agent step per model turn as far as the events tell.

The events do not mark where one model response ends and the next begins, so a turn is
inferred the way every engine behaves: a model response is some text and/or tool calls, and
the engine answers the calls before it asks the model again. So an agent step ends once a
result of one of its calls arrived; the next message or tool call opens a new step.
Consecutive messages of one step are joined (a streamed delta directly, whole messages with
a blank line). A tool's result becomes the observation of the step that made the call, keyed
by its ``tool_call_id``; an amended result (an exit code an engine reveals only after the
run) updates the earlier one; a result whose call was never seen is kept without a
``source_call_id``. An engine ``error`` or ``retry`` or a holon ``note`` becomes a ``system``
step. Phases, stderr lines, usage and the terminal ``result`` event are not steps (the
manifest and the metrics carry what they say).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

#: Tool-call data keys that are holon's bookkeeping, not the tool's arguments.
_NOT_ARGUMENTS = frozenset({"exit_code"})
#: Where adapters put a tool's output (codex: ``aggregated_output``).
_OUTPUT_KEYS = ("output", "aggregated_output")


@dataclass
class AgentStep:
    """One agent step being assembled: the model's text, its calls and their results."""

    timestamp: str | None
    message: str = ""
    last_delta: bool = False
    calls: list[dict[str, Any]] = field(default_factory=list)
    results: dict[str, dict[str, Any]] = field(default_factory=dict)
    unmatched: list[dict[str, Any]] = field(default_factory=list)
    answered: bool = False

    def as_atif(self) -> dict[str, Any]:
        step: dict[str, Any] = {"source": "agent", "message": self.message}
        if self.timestamp is not None:
            step["timestamp"] = self.timestamp
        if self.calls:
            step["tool_calls"] = self.calls
        observed = [*self.results.values(), *self.unmatched]
        if observed:
            step["observation"] = {"results": observed}
        return step


@dataclass
class _Builder:
    clock: Callable[[float], str | None]
    steps: list[AgentStep | dict[str, Any]] = field(default_factory=list)
    current: AgentStep | None = None
    by_call: dict[str, AgentStep] = field(default_factory=dict)

    def open_step(self, ts: float) -> AgentStep:
        if self.current is None or self.current.answered:
            self.current = AgentStep(self.clock(ts))
            self.steps.append(self.current)
        return self.current

    def message(self, event: dict[str, Any]) -> None:
        text = str(event.get("text") or "")
        if not text:
            return
        step = self.open_step(event.get("ts", 0.0))
        delta = bool(_data(event).get("delta"))
        joiner = "" if (delta and step.last_delta) or not step.message else "\n\n"
        step.message = f"{step.message}{joiner}{text}"
        step.last_delta = delta

    def tool_call(self, event: dict[str, Any]) -> None:
        step = self.open_step(event.get("ts", 0.0))
        call_id = str(event.get("tool_id") or f"call-{event.get('seq', len(self.by_call))}")
        call: dict[str, Any] = {
            "tool_call_id": call_id,
            "function_name": str(event.get("tool") or "unknown"),
            "arguments": arguments(_data(event)),
        }
        exit_code = _data(event).get("exit_code")
        if exit_code is not None:
            call["extra"] = {"exit_code": exit_code}
        step.calls.append(call)
        step.last_delta = False
        self.by_call[call_id] = step

    def tool_result(self, event: dict[str, Any]) -> None:
        call_id = str(event.get("tool_id") or "")
        step = self.by_call.get(call_id)
        if step is None:
            # Kept with the latest step (its call may have gone unreported), else a new one.
            orphan = self.current or self.open_step(event.get("ts", 0.0))
            result = observation(event, None)
            result.setdefault("extra", {})["tool_id"] = call_id or None
            orphan.unmatched.append(result)
            orphan.answered = True
            return
        earlier = step.results.get(call_id)
        if earlier is not None and _data(event).get("amended"):
            amended = observation(event, call_id).get("extra", {})
            earlier["extra"] = {**earlier.get("extra", {}), **amended}
        else:
            step.results[call_id] = observation(event, call_id)
        step.answered = True

    def system(self, event: dict[str, Any], prefix: str) -> None:
        text = str(event.get("text") or "") or _describe(_data(event))
        step: dict[str, Any] = {"source": "system", "message": f"{prefix}{text}"}
        timestamp = self.clock(event.get("ts", 0.0))
        if timestamp is not None:
            step["timestamp"] = timestamp
        self.steps.append(step)
        self.current = None


def event_steps(
    events: Iterable[dict[str, Any]], clock: Callable[[float], str | None]
) -> list[dict[str, Any]]:
    """The ATIF steps (without ``step_id``) the engine's events describe, in order."""
    builder = _Builder(clock)
    for event in events:
        kind = event.get("type")
        if kind == "message":
            builder.message(event)
        elif kind == "tool_call":
            builder.tool_call(event)
        elif kind == "tool_result":
            builder.tool_result(event)
        elif kind == "error":
            builder.system(event, "engine error: ")
        elif kind == "note":
            builder.system(event, "holon: ")
        elif kind == "retry":
            builder.system(event, "engine retries the model request: ")
    return [s.as_atif() if isinstance(s, AgentStep) else s for s in builder.steps]


def arguments(data: dict[str, Any]) -> dict[str, Any]:
    """A call's arguments: the tool's own input where the adapter kept it, else its details."""
    given = data.get("input")
    if isinstance(given, dict):
        return given
    if given is not None:
        return {"input": given}
    return {k: v for k, v in data.items() if k not in _NOT_ARGUMENTS}


def observation(event: dict[str, Any], call_id: str | None) -> dict[str, Any]:
    """One observation result: the tool's output as content, status and exit code as extra."""
    data = _data(event)
    result: dict[str, Any] = {}
    if call_id is not None:
        result["source_call_id"] = call_id
    content = next((data[k] for k in _OUTPUT_KEYS if isinstance(data.get(k), str)), None)
    error = data.get("error")
    if content is None and isinstance(error, dict) and error.get("message"):
        content = str(error["message"])
    if content is not None:
        result["content"] = content
    extra = {k: data[k] for k in ("exit_code", "error") if data.get(k) is not None}
    if event.get("status") is not None:
        extra["status"] = event["status"]
    if extra:
        result["extra"] = extra
    return result


def _data(event: dict[str, Any]) -> dict[str, Any]:
    data = event.get("data")
    return data if isinstance(data, dict) else {}


def _describe(data: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in data.items()) or "(no detail)"
