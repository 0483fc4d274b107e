"""``opencode run --format json``: one JSON object per line, turned into holon events.

Lines carry ``type`` (``step_start``, ``text``, ``tool_use``, ``step_finish``, ``error``),
the ``sessionID`` and a ``part``. A step finishing with reason ``stop`` is the terminal
event; ``error`` carries the model API's status (401/403 auth, 429 rate limit, else engine
error). Token counts and cost are summed over the steps. OpenCode's log lines on stderr
show its silent retries (:mod:`holon_adapter_opencode.logs`): past the cap, the run is stopped.
"""

from __future__ import annotations

from typing import Any

from holon_adapter_opencode.logs import DEFAULT_MAX_RETRIES, RETRIES_ENV, stream_error
from holon_core import Event, JsonLinesParser, ToolOutcome, command_ok


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def reason_for_status(status: Any) -> str:
    if status in (401, 403):
        return "auth_failed"
    if status == 429:
        return "rate_limited"
    return "engine_error"


class OpenCodeParser(JsonLinesParser):
    def __init__(self, max_steps: int | None = None, retries: int = DEFAULT_MAX_RETRIES) -> None:
        super().__init__()
        self.max_steps = max_steps
        self.retries = retries
        #: Failed model calls since the last answer (OpenCode's retries of one request).
        self.failed_calls = 0
        self.report.cost_source = "reported"
        self.report.cost_usd = 0.0
        self.report.turns = 0
        # Only a call of the skill tool shows: a skill not called is unknown, not unseen.
        self.report.skills_listing_visible = False

    def feed_stderr(self, line: str) -> list[Event]:
        failed = stream_error(line)
        if failed is None:
            return super().feed_stderr(line)
        self.failed_calls += 1
        data = {"attempt": self.failed_calls, "max_retries": self.retries, "error": failed.message}
        report = self.report
        if self.failed_calls > self.retries and report.abort_reason is None:
            report.abort_reason = report.reason = failed.reason
            report.error = (
                f"OpenCode's model call failed {self.failed_calls} times in a row "
                f"({failed.message}); holon stopped it after {self.retries} retries. "
                f"Check the endpoint and rerun, or raise {RETRIES_ENV} (at most 5)."
            )
        return [Event(type="retry", text=failed.message, data=data)]

    def handle(self, raw: dict[str, Any]) -> list[Event]:
        events: list[Event] = []
        session = raw.get("sessionID")
        if isinstance(session, str) and self.report.session_id is None:
            self.report.session_id = session
            events.append(Event(type="session", data={"session_id": session}))
        part = _dict(raw.get("part"))
        kind = raw.get("type")
        if kind == "text":
            text = str(part.get("text") or "")
            self.report.final_text = text
            events.append(Event(type="message", text=text))
        elif kind == "tool_use":
            events += self._tool(part)
        elif kind == "step_finish":
            events += self._step(part)
        elif kind == "error":
            events += self._error(raw.get("error"))
        return events

    def _tool(self, part: dict[str, Any]) -> list[Event]:
        state = _dict(part.get("state"))
        tool, tool_id = str(part.get("tool") or "?"), str(part.get("callID") or part.get("id"))
        params = _dict(state.get("input"))
        self.report.tool_calls += 1
        ok = state.get("status") == "completed"
        if tool == "skill" and params.get("name") and ok:  # a failed load is not a skill seen
            self.report.skills_seen = (self.report.skills_seen or set()) | {str(params["name"])}
        command = str(params["command"]) if tool == "bash" and "command" in params else None
        meta = _dict(state.get("metadata"))
        exit_code = meta.get("exit") if isinstance(meta.get("exit"), int) else None
        if ok and command is not None and exit_code is not None:
            ok = command_ok(command, exit_code)
        self.report.record_tool_result(ToolOutcome(tool_id, tool, ok, command, exit_code))
        data = {"input": params, "exit_code": exit_code}
        result = {"output": state.get("output") or state.get("error")}
        return [
            Event(type="tool_call", tool=tool, tool_id=tool_id, data=data),
            Event(
                type="tool_result",
                tool=tool,
                tool_id=tool_id,
                status="ok" if ok else "error",
                data=result,
            ),
        ]

    def _step(self, part: dict[str, Any]) -> list[Event]:
        report = self.report
        report.turns = (report.turns or 0) + 1
        self.failed_calls = 0
        tokens = _dict(part.get("tokens"))
        cache = _dict(tokens.get("cache"))
        counts = {
            "input_tokens": tokens.get("input"),
            "output_tokens": tokens.get("output"),
            "reasoning_tokens": tokens.get("reasoning"),
            "cache_read_tokens": cache.get("read"),
            "cache_write_tokens": cache.get("write"),
        }
        for key, value in counts.items():
            if isinstance(value, int):
                report.usage[key] = report.usage.get(key, 0) + value
        report.usage["total_tokens"] = sum(
            v for k, v in report.usage.items() if k != "total_tokens"
        )
        if isinstance(part.get("cost"), (int, float)):
            report.cost_usd = (report.cost_usd or 0.0) + float(part["cost"])
        events = [Event(type="usage", data={"usage": dict(report.usage)})]
        if (
            self.max_steps is not None
            and report.turns >= self.max_steps
            and part.get("reason") != "stop"
        ):
            report.reason = report.abort_reason = "max_steps"
            report.error = f"the run used its {self.max_steps} steps without finishing"
        if part.get("reason") == "stop":
            report.terminal_seen = True
            report.is_error = report.abort_reason is not None
            events.append(Event(type="result", status="ok", data={"usage": dict(report.usage)}))
        return events

    def _error(self, error: Any) -> list[Event]:
        error = _dict(error)
        data = _dict(error.get("data"))
        status = data.get("statusCode")
        message = str(data.get("message") or error.get("name") or "OpenCode reported an error")
        report = self.report
        report.terminal_seen = True
        report.is_error = True
        if report.abort_reason is None:
            report.reason = reason_for_status(status)
            report.error = f"{message} (HTTP {status})" if status else message
        report.extra["http_status"] = status
        return [Event(type="result", status="error", text=message, data={"reason": report.reason})]
