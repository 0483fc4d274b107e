"""Read Gemini CLI's ``--output-format stream-json`` lines into holon events and a report.

The stream has ``init``, ``message`` (user, then assistant deltas), ``tool_use``,
``tool_result``, ``error`` (warnings such as loop detection) and one terminal ``result``.
Traps handled here: the result event carries no text (the final answer is the assistant
deltas after the last tool result), ``result.status`` is ``success`` even when every tool
call failed (we count ``tool_result`` errors so the core's outcome rule can see it) and when
the CLI itself stopped the run early (loop detection: an ``error`` event precedes it), and API
failures surface only as an error message plus an exit code made from the HTTP status.

A shell command that exits non-zero is a ``tool_result`` with ``status: success`` too; the
stream shows its exit code only when the command printed nothing (``Command exited with
code: N``), and a command can print that sentence itself. So that reading is provisional: the
session log has every exit code where the command's output cannot forge it, and
:meth:`GeminiParser.finish` reads it and amends the results it learned better or differently
(``late_events``; see ``session_log.py`` and ``shell_end.py``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Literal

from holon_adapter_gemini.errors import decode
from holon_adapter_gemini.refusals import refusal
from holon_adapter_gemini.session_log import find_session_log, shell_ends
from holon_core import EngineReport, Event, JsonLinesParser, ToolOutcome, command_ok

if TYPE_CHECKING:
    from pathlib import Path

SKILL_TOOL = "activate_skill"
#: ``error`` events after which the CLI ends the run and still reports ``status: success``.
STOP_MESSAGES: dict[str, tuple[str, str]] = {
    "Loop detected": (
        "engine_error",
        "Gemini CLI detected a loop (the model kept repeating the same calls) and stopped "
        "the run before the task was done",
    ),
    "Maximum session turns exceeded": (
        "max_steps",
        "Gemini CLI reached the maximum number of turns and stopped the run",
    ),
}
#: Tool output kept per event; the full text stays in the engine's own chat log.
OUTPUT_CAP = 2000
SHELL_TOOL = "run_shell_command"
#: The whole ``output`` of a shell result that printed nothing and exited non-zero (or of one
#: that printed just this: the session log decides).
_EXITED = re.compile(r"^Command exited with code: (-?\d+)$")


def _message(error: Any) -> str | None:
    """A failed tool's own error message (bounded), for the record."""
    if not isinstance(error, dict) or not error.get("message"):
        return None
    return str(error["message"]).strip()[:200] or None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


class GeminiParser(JsonLinesParser):
    """One parser per run; ``feed`` is called for every stdout line in order."""

    def __init__(
        self, model: str | None = None, max_steps: int | None = None, home: Path | None = None
    ) -> None:
        super().__init__()
        self.max_steps = max_steps
        #: The run-local GEMINI_CLI_HOME, where the session log with the exit codes lives.
        self.home = home
        self.report.model = model
        self.report.skills_seen = set()
        # The listing lives in the system instruction, which the stream never shows: only
        # activations are visible, so a skill not activated is unknown, not unseen.
        self.report.skills_listing_visible = False
        self._tools: dict[str, tuple[str, Any]] = {}
        self._after_tools: list[str] = []
        self._in_turn = False
        self._result_error: tuple[str | None, str] | None = None
        self._stopped: tuple[str, str] | None = None
        self._stderr_tail: list[str] = []
        #: Shell calls the CLI ran (not refused or cut off) -> the stream's status said success.
        self._ran: dict[str, bool] = {}

    # -- stdout --------------------------------------------------------------------------
    def handle(self, raw: dict[str, Any]) -> list[Event]:
        kind = raw.get("type")
        if kind == "init":
            return self._init(raw)
        if kind == "message":
            return self._message(raw)
        if kind == "tool_use":
            return self._tool_use(raw)
        if kind == "tool_result":
            return self._tool_result(raw)
        if kind == "error":
            return self._error(raw)
        if kind == "result":
            return self._result(raw)
        return []

    def _error(self, raw: dict[str, Any]) -> list[Event]:
        """Warnings are kept; the ones that end the run make a later success a failure."""
        text = str(raw.get("message") or "")
        self.report.extra.setdefault("engine_warnings", []).append(text)
        for prefix, (reason, sentence) in STOP_MESSAGES.items():
            if text.startswith(prefix) and self._stopped is None:
                self._stopped = (reason, f"{sentence} ({text})")
        return [Event(type="error", text=text, data={"severity": raw.get("severity")})]

    def _init(self, raw: dict[str, Any]) -> list[Event]:
        report = self.report
        session_id = raw.get("session_id")
        report.session_id = (
            session_id if isinstance(session_id, str) else None
        ) or report.session_id
        if raw.get("model"):
            report.model = str(raw["model"])
        data = {"session_id": report.session_id, "model": report.model}
        return [Event(type="session", data=data)]

    def _start_turn(self) -> None:
        if not self._in_turn:
            self._in_turn = True
            report = self.report
            report.turns = (report.turns or 0) + 1
            limit = self.max_steps
            if limit is not None and report.turns > limit and report.abort_reason is None:
                # The CLI's own limit (model.maxSessionTurns) should have stopped it first;
                # this holds whatever settings the CLI ended up with.
                report.abort_reason = report.reason = "max_steps"
                report.error = (
                    f"Gemini CLI started model turn {report.turns} but the task allows "
                    f"max_steps={limit} model turns; holon stopped it"
                )

    def _message(self, raw: dict[str, Any]) -> list[Event]:
        if raw.get("role") != "assistant":
            return []
        self._start_turn()
        text = str(raw.get("content") or "")
        self._after_tools.append(text)
        return [Event(type="message", text=text, data={"delta": bool(raw.get("delta"))})]

    def _tool_use(self, raw: dict[str, Any]) -> list[Event]:
        self._start_turn()
        name = str(raw.get("tool_name") or "")
        tool_id = str(raw.get("tool_id") or "")
        params = raw.get("parameters")
        self._tools[tool_id] = (name, params)
        self.report.tool_calls += 1
        data = {"input": params} if params is not None else {}
        return [Event(type="tool_call", tool=name, tool_id=tool_id, data=data)]

    def _tool_result(self, raw: dict[str, Any]) -> list[Event]:
        # The next assistant text starts a new model turn; only text after this counts as final.
        self._in_turn = False
        self._after_tools = []
        tool_id = str(raw.get("tool_id") or "")
        name, params = self._tools.get(tool_id, ("", None))
        ok = raw.get("status") == "success"
        output = raw.get("output")
        error = raw.get("error")
        command, exit_code, refused = None, None, None
        if name == SHELL_TOOL and isinstance(params, dict):
            command = str(params.get("command") or "")
            refused = refusal(command, raw.get("status"), output, error)
            exited = _EXITED.match(output) if isinstance(output, str) else None
            if refused is not None:
                ok = False  # not run (or cut off), whatever the status says
            else:
                self._ran[tool_id] = ok
                if exited:  # provisional (see the module docstring)
                    exit_code = int(exited.group(1))
                    ok = ok and command_ok(command, exit_code)
        detail = refused[1] if refused else _message(error)
        outcome = ToolOutcome(tool_id, name or None, ok, command, exit_code, error=detail)
        self.report.record_tool_result(outcome)
        if ok and name == SKILL_TOOL and isinstance(params, dict) and params.get("name"):
            assert self.report.skills_seen is not None
            self.report.skills_seen.add(str(params["name"]))
        data: dict[str, Any] = {} if exit_code is None else {"exit_code": exit_code}
        if isinstance(output, str):
            data["output"] = output[:OUTPUT_CAP]
        if refused is not None:
            data["error"] = {"type": refused[0], "message": refused[1]}
        elif isinstance(error, dict):
            data["error"] = {"type": error.get("type"), "message": error.get("message")}
        status: Literal["ok", "error"] = "ok" if ok else "error"
        return [
            Event(type="tool_result", tool=name or None, tool_id=tool_id, status=status, data=data)
        ]

    def _result(self, raw: dict[str, Any]) -> list[Event]:
        report = self.report
        report.terminal_seen = True
        report.final_text = "".join(self._after_tools).strip()
        stats = raw.get("stats")
        if isinstance(stats, dict):
            self._stats(stats)
        failed = raw.get("status") != "success"
        report.is_error = failed or self._stopped is not None or report.abort_reason is not None
        if report.abort_reason is not None:
            return [Event(type="result", status="error", data=raw)]
        if not failed and self._stopped is not None:
            report.reason, report.error = self._stopped
        if failed:
            error = raw.get("error") if isinstance(raw.get("error"), dict) else {}
            assert isinstance(error, dict)
            error_type = error.get("type")
            message = str(error.get("message") or "").strip()
            self._result_error = (str(error_type) if error_type else None, message)
            decoded = decode(None, self._result_error[0], message)
            report.reason, report.error = decoded.reason, decoded.sentence
        return [Event(type="result", status="error" if failed else "ok", data=raw)]

    def _stats(self, stats: dict[str, Any]) -> None:
        usage = {
            "input_tokens": _int(stats.get("input_tokens")),
            "output_tokens": _int(stats.get("output_tokens")),
            "cache_read_tokens": _int(stats.get("cached")),
            "total_tokens": _int(stats.get("total_tokens")),
        }
        self.report.usage = {key: value for key, value in usage.items() if value is not None}
        models = stats.get("models")
        if isinstance(models, dict):
            self.report.extra["models"] = sorted(str(name) for name in models)
        if _int(stats.get("duration_ms")) is not None:
            self.report.extra["engine_duration_ms"] = stats["duration_ms"]

    def feed_stderr(self, line: str) -> list[Event]:
        text = line.strip()
        if text and not text.startswith(("at ", "[STARTUP]")):
            self._stderr_tail = [*self._stderr_tail[-4:], text]
        return super().feed_stderr(line)

    # -- end of run --------------------------------------------------------------------------
    def finish(self, exit_code: int | None) -> EngineReport:
        """Refine the reason with the exit code, which is the only carrier of e.g. HTTP 429."""
        report = self.report
        report.extra["exit_code"] = exit_code
        self._amend_exit_codes()
        if report.abort_reason is not None:
            return report  # holon stopped the engine; its own sentence stands
        if self._result_error is not None:
            decoded = decode(exit_code, *self._result_error)
            report.reason, report.error = decoded.reason, decoded.sentence
            if decoded.http_status is not None:
                report.extra["http_status"] = decoded.http_status
        elif not report.terminal_seen and exit_code not in (None, 0):
            # No result event (e.g. exit 41/55 during startup): keep a clear sentence for the
            # manifest; the core's rule still calls it a crash because nothing terminal came.
            detail = self._stderr_tail[-1] if self._stderr_tail else ""
            report.error = decode(exit_code, None, detail).sentence
        return report

    def _amend_exit_codes(self) -> None:
        """Judge the shell commands that ran by the session log's exit codes.

        Those the stream hid, and those it showed, which the command may have printed.
        """
        pending = [t for t in self.report.tool_log if t.tool_id in self._ran and t.command]
        path = find_session_log(self.home, self.report.session_id) if self.home else None
        if not pending or path is None:
            return
        ends = shell_ends(path)
        for outcome in pending:
            end = ends.get(outcome.tool_id)
            if end is None:
                continue  # not logged, or not in the CLI's form: the stream's verdict stands
            assert outcome.command is not None
            ok = self._ran[outcome.tool_id]  # ended by a signal: the stream's verdict stands
            if end.exit_code is not None:
                ok = ok and command_ok(outcome.command, end.exit_code)
            if (ok, end.exit_code) == (outcome.ok, outcome.exit_code):
                continue
            self.report.amend_tool_result(outcome.tool_id, ok=ok, exit_code=end.exit_code)
            data: dict[str, Any] = {"exit_code": end.exit_code}
            if end.signal is not None:
                data["signal"] = end.signal
            self.report.late_events.append(
                Event(
                    type="tool_result",
                    tool=outcome.tool,
                    tool_id=outcome.tool_id,
                    status="ok" if ok else "error",
                    data=data | {"amended": True, "source": "session_log"},
                )
            )
