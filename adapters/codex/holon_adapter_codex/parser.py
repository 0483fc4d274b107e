"""``codex exec --json`` lines to holon events, and the signals the outcome rule reads.

Success is ``turn.completed``; ``turn.failed`` is a terminal error; a run that ends with
neither is not a success, whatever the exit code. Three things need an early stop, signalled
through ``report.abort_reason``: Codex spends its stream retries on a 401, it never gives up
on an unreachable endpoint (``Reconnecting... waiting for network`` with growing pauses,
whatever the retry caps say), and it has no turn limit of its own.

``max_steps`` means model turns, as for the other engines. The stream shows no turn
boundaries, but a model turn that calls a tool ends with that call: after ``max_steps`` tool
calls, any further model output (a tool call, a message, reasoning) is turn ``max_steps + 1``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from holon_adapter_codex.classify import is_network_wait, is_retry_notice, reason_for
from holon_adapter_codex.rollout import find_rollout, read_rollout
from holon_core import EngineReport, Event, JsonLinesParser, ToolOutcome, command_ok

if TYPE_CHECKING:
    from pathlib import Path

#: Codex item types that are tool calls, with the tool name holon records.
TOOL_ITEMS = {
    "command_execution": "shell",
    "file_change": "apply_patch",
    "mcp_tool_call": "mcp",
    "web_search": "web_search",
}
#: Items that are model output: seen after the step budget, they open one turn too many.
OUTPUT_ITEMS = {*TOOL_ITEMS, "agent_message", "reasoning"}
#: Consecutive "waiting for network" notices before holon gives up (~5 s with Codex's
#: back-off): one notice may be a blip, the second means the endpoint is really gone.
NETWORK_WAITS = 2
#: ``Reconnecting... 1/5 (the error)`` -> ``the error``.
_NOTICE = re.compile(r"^Reconnecting\.\.\. (?:\d+/\d+ )?\((.*)\)$", re.S)
_STDIN_NOTICE = "Reading additional input from stdin"
#: The only trace of a command an execpolicy rule forbids (``decision = "forbidden"``):
#: Codex 0.169 prints no item for it on stdout, only this stderr line (and the model is told).
_REJECTED = re.compile(
    r"exec_command failed: CreateProcess .*Rejected\(\\*\"`(.*)` rejected: (.*?)\\*\"\)"
)


class CodexParser(JsonLinesParser):
    def __init__(self, codex_home: Path, base_url: str, max_steps: int | None = None) -> None:
        super().__init__()
        self.codex_home = codex_home
        self.base_url = base_url
        self.max_steps = max_steps
        self._tools_seen: set[str] = set()
        self._items_seen: set[str] = set()
        self._network_waits = 0

    # -- stdout -----------------------------------------------------------------------------
    def handle(self, raw: dict[str, Any]) -> list[Event]:
        kind = raw.get("type")
        if kind != "error":
            self._network_waits = 0
        if kind == "thread.started":
            thread_id = raw.get("thread_id")
            self.report.session_id = thread_id if isinstance(thread_id, str) else None
            return [Event(type="session", data={"session_id": self.report.session_id})]
        if kind in ("item.started", "item.updated", "item.completed"):
            item = raw.get("item")
            return self._item(kind, item) if isinstance(item, dict) else []
        if kind == "turn.completed":
            return self._completed(raw.get("usage"))
        if kind == "turn.failed":
            error = raw.get("error") or {}
            message = str(error.get("message") if isinstance(error, dict) else error)
            return self._failed(message)
        if kind == "error":
            return self._error(str(raw.get("message") or ""))
        return []

    def _item(self, kind: str, item: dict[str, Any]) -> list[Event]:
        item_type = str(item.get("type"))
        if item_type in OUTPUT_ITEMS:
            self._count_turns(str(item.get("id")))
        if item_type in TOOL_ITEMS:
            events = self._tool_call(item_type, item)
            if kind == "item.completed":
                events.append(self._tool_result(item_type, item))
            return events
        if kind != "item.completed":
            return []
        if item_type == "agent_message":
            text = str(item.get("text") or "")
            self.report.final_text = text
            return [Event(type="message", text=text)]
        if item_type == "reasoning":
            return [
                Event(type="message", text=str(item.get("text") or ""), data={"kind": item_type})
            ]
        if item_type == "error":
            # Non-fatal warnings, e.g. "Model metadata for `x` not found".
            return [Event(type="error", text=str(item.get("message") or ""), data={"fatal": False})]
        return []

    def _tool_call(self, item_type: str, item: dict[str, Any]) -> list[Event]:
        item_id = str(item.get("id"))
        if item_id in self._tools_seen:
            return []
        self._tools_seen.add(item_id)
        self.report.tool_calls += 1
        data: dict[str, Any] = {
            k: item[k] for k in ("command", "changes", "server", "tool", "query") if k in item
        }
        return [Event(type="tool_call", tool=TOOL_ITEMS[item_type], tool_id=item_id, data=data)]

    def _count_turns(self, item_id: str) -> None:
        """New model output after ``max_steps`` tool calls: a turn beyond the budget."""
        if item_id in self._items_seen:
            return
        self._items_seen.add(item_id)
        report = self.report
        limit = self.max_steps
        if limit is None or report.tool_calls < limit or report.abort_reason is not None:
            return
        report.abort_reason = report.reason = "max_steps"
        report.error = (
            f"Codex started model turn {limit + 1} after {report.tool_calls} tool calls but "
            f"the task allows max_steps={limit} model turns; holon stopped it"
        )

    def _tool_result(self, item_type: str, item: dict[str, Any]) -> Event:
        """A finished item; a command is judged by its exit code (``status`` says ``failed``
        for any non-zero code, even ``grep`` finding nothing)."""
        status = item.get("status")
        exit_code = item.get("exit_code")
        command = str(item.get("command") or "") if item_type == "command_execution" else None
        if command is not None and isinstance(exit_code, int) and not isinstance(exit_code, bool):
            ok = command_ok(command, exit_code) and not item.get("error")
        else:
            exit_code = None
            ok = status == "completed" and not item.get("error")
        item_id = str(item.get("id"))
        tool = TOOL_ITEMS[item_type]
        self.report.record_tool_result(ToolOutcome(item_id, tool, ok, command, exit_code))
        data: dict[str, Any] = {
            k: item[k] for k in ("exit_code", "aggregated_output", "status") if k in item
        }
        return Event(
            type="tool_result",
            tool=tool,
            tool_id=item_id,
            status="ok" if ok else "error",
            data=data,
        )

    def _completed(self, usage: Any) -> list[Event]:
        report = self.report
        report.terminal_seen = True
        # The run may finish before the supervisor acts on an abort: still not a success.
        report.is_error = report.abort_reason is not None
        if isinstance(usage, dict):
            report.usage = normalize_usage(usage)
        return [Event(type="result", status="ok", data={"usage": report.usage})]

    def _failed(self, message: str) -> list[Event]:
        report = self.report
        report.terminal_seen = True
        report.is_error = True
        report.reason = report.reason if report.abort_reason else reason_for(message)
        report.error = report.error if report.abort_reason else explain(message)
        return [Event(type="result", status="error", text=message, data={"reason": report.reason})]

    def _error(self, message: str) -> list[Event]:
        report = self.report
        if not is_retry_notice(message):
            if report.abort_reason is None:
                report.error = explain(message)
                report.reason = reason_for(message)
            return [Event(type="error", text=message, data={"fatal": True})]
        events = [Event(type="retry", text=message)]
        if reason_for(message) == "auth_failed" and report.abort_reason is None:
            report.abort_reason = report.reason = "auth_failed"
            report.error = explain(message)
        elif is_network_wait(message):
            self._network_waits += 1
            if self._network_waits >= NETWORK_WAITS and report.abort_reason is None:
                report.abort_reason = report.reason = "engine_error"
                report.error = (
                    f"Codex cannot reach the model endpoint {self.base_url} (connection "
                    "failed) and would retry forever; check OPENAI_BASE_URL and the network"
                )
        return events

    # -- stderr and the end -------------------------------------------------------------------
    def feed_stderr(self, line: str) -> list[Event]:
        text = line.strip()
        if not text or text.startswith(_STDIN_NOTICE):
            return []
        rejected = _REJECTED.search(text[:4000])
        if rejected:
            return [Event(type="stderr", text=line), self._rejected(*rejected.groups())]
        if text.startswith("Error") and self.report.error is None:
            # Start-up failures (bad config, missing CODEX_HOME) only reach stderr.
            self.report.error = f"Codex failed to start: {text}"
        return [Event(type="stderr", text=line)]

    def _rejected(self, command: str, why: str) -> Event:
        """A command Codex refused to start: a failed call that never ran (no exit code)."""
        report = self.report
        report.tool_calls += 1
        tool_id = f"rejected-{report.tool_calls}"
        error = f"refused by Codex: {why[:200]}"
        report.record_tool_result(ToolOutcome(tool_id, "shell", False, command, error=error))
        data = {"command": command, "error": {"type": "refused", "message": error}}
        return Event(type="tool_result", tool="shell", tool_id=tool_id, status="error", data=data)

    def finish(self, exit_code: int | None) -> EngineReport:
        report = self.report
        path = find_rollout(self.codex_home, report.session_id)
        if path is None:
            return report
        rollout = read_rollout(path)
        report.model = rollout.model or report.model
        report.turns = rollout.responses or report.turns
        if not report.usage and rollout.usage:
            report.usage = normalize_usage(rollout.usage)
        if not report.final_text and rollout.last_agent_message:
            report.final_text = rollout.last_agent_message
        report.skills_seen = rollout.skills_listed
        report.extra["rollout"] = str(path)
        if rollout.duration_ms is not None:
            report.extra["duration_ms"] = rollout.duration_ms
        if rollout.first_token_ms is not None:
            report.extra["time_to_first_token_ms"] = rollout.first_token_ms
        if rollout.provider:
            report.extra["model_provider"] = rollout.provider
        return report


def normalize_usage(usage: dict[str, Any]) -> dict[str, int]:
    """Codex's token counts in holon's names (cached and reasoning tokens are subsets)."""

    def count(name: str) -> int:
        value = usage.get(name)
        return int(value) if isinstance(value, int | float) else 0

    inp, out = count("input_tokens"), count("output_tokens")
    return {
        "input_tokens": inp,
        "output_tokens": out,
        "cache_read_tokens": count("cached_input_tokens"),
        "cache_write_tokens": count("cache_write_input_tokens"),
        "total_tokens": count("total_tokens") or inp + out,
    }


def explain(message: str) -> str:
    """A sentence for the manifest: what failed, and for auth what to do next."""
    notice = _NOTICE.match(message.strip())
    text = notice.group(1) if notice else message.strip()
    reason = reason_for(text)
    if reason == "auth_failed":
        return (
            f"the model endpoint rejected the credentials: {text}; check OPENAI_API_KEY "
            "or CODEX_API_KEY"
        )
    if reason == "rate_limited":
        return f"the model endpoint is rate limiting this key: {text}"
    return f"Codex reported an error: {text}"
