"""Tool calls from ``tool_call`` / ``tool_call_update`` notifications, merged per ``toolCallId``.

ACP streams a tool call as a start and updates that each carry only the fields that changed;
its ``status`` ends ``completed`` or ``failed``. Some agents never send the start (``gemini
--acp`` reports tools only through updates and the permission request), so an update for an
unknown id starts the call. Exit codes are not in the standard: agents put them in
``rawOutput`` under names of their own (codex-acp ``exit_code``, OpenCode
``metadata.exit``), read here by :func:`exit_code`; a shell call with a known non-zero code is
a failed one even when the agent says ``completed``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from holon_core import Event, ToolOutcome, command_ok

FINISHED = ("completed", "failed")
#: Where agents put a command's exit code inside ``rawOutput`` (dotted paths, first found wins).
EXIT_CODE_KEYS = ("exit_code", "exitCode", "metadata.exit", "metadata.exit_code", "code")
#: Where they put the command line inside ``rawInput``.
COMMAND_KEYS = ("command", "cmd")
OUTPUT_CHARS = 4000


@dataclass(slots=True)
class ToolCall:
    tool_id: str
    fields: dict[str, Any] = field(default_factory=dict)
    #: The ``tool_call`` event was written (held back while the call is pending and empty).
    announced: bool = False
    finished: bool = False

    def ready(self) -> bool:
        """Worth announcing: it runs, or says what it will run (OpenCode starts empty)."""
        return self.fields.get("status") not in (None, "pending") or bool(
            self.fields.get("rawInput")
        )

    def merge(self, update: dict[str, Any]) -> None:
        for key, value in update.items():
            if key not in ("sessionUpdate", "toolCallId") and value is not None:
                self.fields[key] = value

    @property
    def name(self) -> str:
        kind = self.fields.get("kind")
        return str(kind) if kind else str(self.fields.get("title") or "tool")

    def command(self) -> str | None:
        """The shell command line: from ``rawInput``, else an ``execute`` call's title
        (``gemini --acp`` sends no ``rawInput``; its title is the command)."""
        raw = self.fields.get("rawInput")
        for key in COMMAND_KEYS:
            value = raw.get(key) if isinstance(raw, dict) else None
            if isinstance(value, list) and all(isinstance(word, str) for word in value):
                return " ".join(value)
            if isinstance(value, str) and value.strip():
                return value
        title = self.fields.get("title")
        if self.fields.get("kind") == "execute" and isinstance(title, str) and title.strip():
            return title
        return None


def _dig(data: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        if not isinstance(data, dict):
            return None
        data = data.get(part)
    return data


def exit_code(raw_output: Any) -> int | None:
    """A command's exit code from an agent's ``rawOutput``, when it gives one."""
    for key in EXIT_CODE_KEYS:
        value = _dig(raw_output, key)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


def output_text(call: ToolCall) -> str | None:
    """The tool's text output: ``rawOutput`` text, else the text content blocks."""
    raw = call.fields.get("rawOutput")
    for key in ("output", "stdout", "formatted_output", "aggregated_output"):
        value = _dig(raw, key)
        if isinstance(value, str):
            return value[:OUTPUT_CHARS]
    if isinstance(raw, str):
        return raw[:OUTPUT_CHARS]
    texts = []
    for item in call.fields.get("content") or []:
        block = item.get("content") if isinstance(item, dict) else None
        if isinstance(block, dict) and isinstance(block.get("text"), str):
            texts.append(block["text"])
    return "\n".join(texts)[:OUTPUT_CHARS] if texts else None


def start_event(call: ToolCall) -> Event:
    data: dict[str, Any] = {"title": call.fields.get("title"), "kind": call.fields.get("kind")}
    if "rawInput" in call.fields:
        data["input"] = call.fields["rawInput"]
    if call.fields.get("locations"):
        data["locations"] = call.fields["locations"]
    return Event(type="tool_call", tool=call.name, tool_id=call.tool_id, data=data)


def finish(call: ToolCall) -> tuple[Event, ToolOutcome]:
    """The ``tool_result`` event and the outcome of a call that reached a final status."""
    call.finished = True
    command = call.command()
    code = exit_code(call.fields.get("rawOutput"))
    ok = call.fields.get("status") == "completed"
    if ok and command is not None and code is not None:
        ok = command_ok(command, code)
    data: dict[str, Any] = {"acp_status": call.fields.get("status")}
    if code is not None:
        data["exit_code"] = code
    text = output_text(call)
    if text is not None:
        data["output"] = text
    event = Event(
        type="tool_result",
        tool=call.name,
        tool_id=call.tool_id,
        status="ok" if ok else "error",
        data=data,
    )
    error = (
        None
        if ok or code is not None
        else f"the agent reported the tool {call.fields.get('status')}"
    )
    outcome = ToolOutcome(call.tool_id, call.name, ok, command, code, error)
    return event, outcome
