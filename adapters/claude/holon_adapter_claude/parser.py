"""Claude Code ``stream-json`` lines into holon events and an :class:`EngineReport`.

The engine's own verdict is not trusted blindly: ``result.subtype`` says ``success`` on API
failures, so ``is_error`` decides, and ``api_error_status`` / the ``api_retry`` events give
the reason. A 401/403 retry aborts the run at once instead of waiting out the engine's
retries (minutes with its defaults).

Bash results carry the exit code as text: a failed command's ``tool_result`` is
``is_error: true`` with content ``Exit code N\n<output>``; a successful one has no code
(0), and one Claude Code itself reads as an answer (``grep`` with no match, ``diff`` that
found differences) is ``is_error: false`` with ``tool_use_result.returnCodeInterpretation``
naming it (exit 1). holon judges the code by the same rule as on every engine.

A call Claude Code refused (a ``permissions.deny`` rule, which the workspace's
``.claude/settings.json`` can set even under ``--dangerously-skip-permissions``; a path
outside the allowed directories) is ``is_error: true`` with the refusal as its text and no
exit code: a failed call whose ``error`` says it never ran.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from holon_adapter_claude.messages import (
    auth_error,
    max_turns_error,
    rate_limit_error,
    reason_for_status,
    server_error,
)
from holon_core import EngineReport, Event, JsonLinesParser, ToolOutcome, command_ok

#: Characters of tool output kept in an event; the full text stays in the engine transcript.
OUTPUT_PREVIEW = 2000
AUTH_STATUSES = (401, 403)
SHELL_TOOL = "Bash"
_EXIT_CODE = re.compile(r"^Exit code (-?\d+)\b")
#: ``returnCodeInterpretation`` texts Claude Code gives exit status 1 of answer commands.
_EXIT_ONE = ("No matches found", "Files differ")
#: Texts of the ``tool_result`` Claude Code 2.1 sends back instead of running a call.
_REFUSED = re.compile(
    r"^(Permission to use .* has been denied\b"
    r"|.* was blocked\. For security, Claude Code may only"
    r"|.* was blocked by a deny rule)"
)
#: Characters of a refusal kept in the record.
REFUSAL_CHARS = 200


class ClaudeParser(JsonLinesParser):
    """Stateful: remembers tool names by id and the last retried HTTP status."""

    def __init__(self) -> None:
        super().__init__()
        self._tool_names: dict[str, str] = {}
        #: Bash command lines by tool id.
        self._commands: dict[str, str] = {}
        #: Skill tool calls by id; a skill counts as used once its call returned ok.
        self._skill_calls: dict[str, str] = {}
        self._last_status: int | None = None
        self._retries = 0
        self._api_error_text: str | None = None
        self.report.extra["skills_used"] = []

    def handle(self, raw: dict[str, Any]) -> list[Event]:
        kind = raw.get("type")
        if kind == "system":
            return self._system(raw)
        if kind == "assistant":
            return self._assistant(raw)
        if kind == "user":
            return self._user(raw)
        if kind == "result":
            return self._result(raw)
        return []

    # -- system events ------------------------------------------------------------------------
    def _system(self, raw: dict[str, Any]) -> list[Event]:
        subtype = raw.get("subtype")
        if subtype == "init":
            return [self._init(raw)]
        if subtype == "api_retry":
            return self._retry(raw)
        return []

    def _init(self, raw: dict[str, Any]) -> Event:
        report = self.report
        report.session_id = _text(raw.get("session_id")) or report.session_id
        report.model = _text(raw.get("model")) or report.model
        report.engine_version = _text(raw.get("claude_code_version")) or report.engine_version
        skills = raw.get("skills")
        report.skills_seen = {str(s) for s in skills} if isinstance(skills, list) else None
        report.extra["api_key_source"] = raw.get("apiKeySource")
        report.extra["permission_mode"] = raw.get("permissionMode")
        data = {
            "session_id": report.session_id,
            "model": report.model,
            "engine_version": report.engine_version,
            "tools": raw.get("tools") or [],
            "skills": sorted(report.skills_seen or ()),
        }
        return Event(type="session", data=data)

    def _retry(self, raw: dict[str, Any]) -> list[Event]:
        status = _int(raw.get("error_status"))
        self._last_status = status
        self._retries += 1
        data: dict[str, Any] = {
            k: raw[k]
            for k in ("attempt", "max_retries", "retry_delay_ms", "error_status", "error")
            if k in raw
        }
        if status in AUTH_STATUSES and self.report.abort_reason is None:
            self.report.abort_reason = "auth_failed"
            self.report.reason = "auth_failed"
            self.report.is_error = True
            self.report.error = auth_error(status)
        return [Event(type="retry", text=str(raw.get("error") or ""), data=data)]

    # -- conversation ---------------------------------------------------------------------------
    def _assistant(self, raw: dict[str, Any]) -> list[Event]:
        message = raw.get("message")
        if not isinstance(message, dict):
            return []
        model = message.get("model")
        synthetic = model == "<synthetic>"
        if isinstance(model, str) and model and not synthetic:
            self.report.model = model
        events: list[Event] = []
        for block in _blocks(message):
            btype = block.get("type")
            if btype == "text":
                text = str(block.get("text") or "")
                if synthetic and raw.get("error"):
                    self._api_error_text = text
                    events.append(Event(type="error", text=text, data={"error": raw["error"]}))
                elif text:
                    events.append(Event(type="message", text=text))
            elif btype == "tool_use":
                events.append(self._tool_call(block))
        return events

    def _tool_call(self, block: dict[str, Any]) -> Event:
        tool_id = str(block.get("id") or "")
        name = str(block.get("name") or "")
        self._tool_names[tool_id] = name
        self.report.tool_calls += 1
        tool_input = block.get("input") if isinstance(block.get("input"), dict) else {}
        if name == SHELL_TOOL and isinstance(tool_input, dict):
            self._commands[tool_id] = str(tool_input.get("command") or "")
        if name == "Skill" and isinstance(tool_input, dict) and tool_input.get("skill"):
            self._skill_calls[tool_id] = str(tool_input["skill"])
        return Event(type="tool_call", tool=name, tool_id=tool_id, data={"input": tool_input})

    def _user(self, raw: dict[str, Any]) -> list[Event]:
        message = raw.get("message")
        if not isinstance(message, dict):
            return []
        events: list[Event] = []
        blocks = [b for b in _blocks(message) if b.get("type") == "tool_result"]
        # The structured result sits beside the message; it is this block's only if alone.
        detail = raw.get("tool_use_result") if len(blocks) == 1 else None
        for block in blocks:
            tool_id = str(block.get("tool_use_id") or "")
            failed = bool(block.get("is_error"))
            text = _text_of(block.get("content"))
            command = self._commands.get(tool_id)
            exit_code = _exit_code(failed, text, detail) if command is not None else None
            # The exit code decides when known, by the rule every engine shares.
            ok = not failed if exit_code is None else command_ok(command or "", exit_code)
            tool = self._tool_names.get(tool_id)
            refused = _refusal(text) if failed and exit_code is None else None
            outcome = ToolOutcome(tool_id, tool, ok, command, exit_code, error=refused)
            self.report.record_tool_result(outcome)
            if ok and tool_id in self._skill_calls:
                self.report.extra["skills_used"].append(self._skill_calls[tool_id])
            data: dict[str, Any] = {} if exit_code is None else {"exit_code": exit_code}
            data["output"] = text[:OUTPUT_PREVIEW]
            if refused is not None:
                data["error"] = {"type": "refused", "message": refused}
            status: Literal["ok", "error"] = "ok" if ok else "error"
            events.append(
                Event(type="tool_result", tool=tool, tool_id=tool_id, status=status, data=data)
            )
        return events

    # -- the terminal event ---------------------------------------------------------------------
    def _result(self, raw: dict[str, Any]) -> list[Event]:
        report = self.report
        report.terminal_seen = True
        subtype = str(raw.get("subtype") or "")
        is_error = raw.get("is_error")
        report.is_error = bool(is_error) if isinstance(is_error, bool) else subtype != "success"
        report.session_id = _text(raw.get("session_id")) or report.session_id
        report.turns = _int(raw.get("num_turns"))
        report.final_text = str(raw.get("result") or "")
        report.usage = _usage(raw.get("usage"))
        cost = raw.get("total_cost_usd")
        if isinstance(cost, int | float):
            report.cost_usd = float(cost)
            report.cost_source = "reported"
        models = raw.get("modelUsage")
        if isinstance(models, dict) and models:
            report.extra["models_used"] = sorted(models)
        report.extra["result_subtype"] = subtype
        report.extra["api_error_status"] = raw.get("api_error_status")
        if report.is_error:
            self._classify(raw, subtype)
        events = [Event(type="usage", data=dict(report.usage))] if report.usage else []
        status: Literal["ok", "error"] = "error" if report.is_error else "ok"
        data = {
            "subtype": subtype,
            "num_turns": report.turns,
            "duration_ms": raw.get("duration_ms"),
            "cost_usd": report.cost_usd,
        }
        events.append(
            Event(type="result", text=report.final_text or None, status=status, data=data)
        )
        return events

    def _classify(self, raw: dict[str, Any], subtype: str) -> None:
        report = self.report
        if report.reason == "auth_failed":
            return
        status = _int(raw.get("api_error_status")) or self._last_status
        detail = report.final_text or "; ".join(str(e) for e in raw.get("errors") or [])
        if subtype == "error_max_turns":
            report.reason = "max_steps"
            report.error = max_turns_error(report.turns, detail)
            return
        report.reason = reason_for_status(status)
        if report.reason == "auth_failed":
            report.error = auth_error(status)
        elif report.reason == "rate_limited":
            report.error = rate_limit_error(self._retries, detail)
        elif status is not None:
            report.error = server_error(status, self._retries, detail)
        else:
            report.error = f"Claude Code reported an error ({subtype or 'no subtype'}): {detail}"

    def finish(self, exit_code: int | None) -> EngineReport:
        if not self.report.terminal_seen and self.report.error is None and self._api_error_text:
            self.report.error = f"Claude Code ended without a result: {self._api_error_text}"
        return self.report


def _refusal(text: str) -> str | None:
    """holon's sentence for a call Claude Code refused to run; None for any other error."""
    first = text.strip().split("\n", 1)[0][:1000]
    if not _REFUSED.match(first):
        return None
    return f"refused by Claude Code: {first[:REFUSAL_CHARS]}"


def _exit_code(failed: bool, text: str, detail: object) -> int | None:
    """A Bash result's exit code, where Claude Code's result shows it; else None."""
    if failed:
        match = _EXIT_CODE.match(text)
        return int(match.group(1)) if match else None
    if not isinstance(detail, dict) or detail.get("interrupted"):
        return None
    interpretation = detail.get("returnCodeInterpretation")
    if interpretation is None:
        return 0
    return 1 if interpretation in _EXIT_ONE else None


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    if not isinstance(content, list):
        return []
    return [b for b in content if isinstance(b, dict)]


def _text_of(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _text(value: object) -> str | None:
    """A string field of the stream, or None when the engine sent another type."""
    return value if isinstance(value, str) else None


def _usage(raw: object) -> dict[str, int]:
    """Anthropic usage into holon's keys; ``input_tokens`` excludes cached input there."""
    if not isinstance(raw, dict):
        return {}
    usage = {
        "input_tokens": _int(raw.get("input_tokens")) or 0,
        "output_tokens": _int(raw.get("output_tokens")) or 0,
        "cache_read_tokens": _int(raw.get("cache_read_input_tokens")) or 0,
        "cache_write_tokens": _int(raw.get("cache_creation_input_tokens")) or 0,
    }
    usage["total_tokens"] = sum(usage.values())
    return usage
