"""The bridge's JSON lines (``wire.py``) -> holon's normalized events and the EngineReport.

Signals the outcome rule reads, and the guards around ``stopReason`` (never trusted alone):

* a JSON-RPC error answering any request is the terminal event, with its reason
  (``outcome_map.py``): 401/403/-32000 ``auth_failed``, 429 ``rate_limited``, else
  ``engine_error``; an agent request holon could not serve is named in the error;
* ``agent_exit`` before an answer: no terminal event, so the exit status decides
  (``engine_crashed``);
* ``end_turn`` after an error the agent reported in an update's ``_meta`` and did not
  retry (``agent_errors.py``: codex-acp) fails with that error;
* ``end_turn`` is a success only if the turn did something: a turn without a message or
  a tool call is how agents end after a swallowed model error, so it fails ``engine_error``;
  failed tools then go through holon's tool rule like every engine's;
* other stop reasons fail with their own reason (``max_turn_requests`` -> ``max_steps``, ...).
"""

from __future__ import annotations

from typing import Any, Literal

from holon_adapter_acp.agent_errors import AgentError, meta_error, system_error
from holon_adapter_acp.outcome_map import STOP_REASONS, error_reason, error_sentence
from holon_adapter_acp.retries import RetryWatch, retry_reason
from holon_adapter_acp.tools import FINISHED, ToolCall, finish, start_event
from holon_core import EngineReport, Event, JsonLinesParser

EMPTY_TURN = (
    "the ACP agent ended its turn (end_turn) without a message or a tool call; an agent "
    "ends so after a model error it did not report, so the turn is not trusted"
)


class AcpParser(JsonLinesParser):
    """Reads the bridge's stdout; one instance per run."""

    def __init__(
        self, model: str | None = None, retries: tuple[RetryWatch, int] | None = None
    ) -> None:
        super().__init__()
        self.report.model = model
        self._retries = retries
        self._failed_calls = 0
        #: The last error the agent reported in an update's ``_meta`` (``agent_errors.py``).
        self._agent_error: AgentError | None = None
        self._broken = False
        self._calls: dict[str, ToolCall] = {}
        self._text: list[str] = []
        self._unanswerable: list[str] = []
        self._permissions: list[dict[str, Any]] = []

    def handle(self, raw: dict[str, Any]) -> list[Event]:
        kind = raw.get("acp")
        handler = getattr(self, f"_on_{kind}", None) if isinstance(kind, str) else None
        if handler is None:
            return [Event(type="message", text=str(raw), data={"unparsed": True})]
        events: list[Event] = handler(raw)
        return events

    # -- connection ------------------------------------------------------------------------
    def _on_initialized(self, raw: dict[str, Any]) -> list[Event]:
        agent = raw.get("agent") if isinstance(raw.get("agent"), dict) else {}
        self.report.extra["agent"] = agent
        if agent and agent.get("version"):
            self.report.engine_version = str(agent["version"])
        return [
            Event(type="session", data={"agent": agent, "auth_methods": raw.get("auth_methods")})
        ]

    def _on_session(self, raw: dict[str, Any]) -> list[Event]:
        session_id = raw.get("session_id")
        self.report.session_id = session_id if isinstance(session_id, str) else None
        if raw.get("model"):
            self.report.model = str(raw["model"])
        if raw.get("resumed"):
            self.report.extra["resume"] = {"session_id": session_id, "resumed": True}
        data = {"session_id": session_id, "model": raw.get("model"), "resumed": raw.get("resumed")}
        return [Event(type="session", data=data)]

    def _on_resume_failed(self, raw: dict[str, Any]) -> list[Event]:
        """The agent did not continue its session: a warning, the turn goes on with serve's
        transcript in a new session (``resume.py``)."""
        record = {key: raw.get(key) for key in ("session_id", "method", "message")}
        self.report.extra["resume"] = {**record, "resumed": False}
        text = (
            f"warning: the agent did not continue session {raw.get('session_id')!r} "
            f"({raw.get('method') or 'no resume or load offered'}: {raw.get('message')}); "
            "a new session was given the transcript of the earlier turns"
        )
        return [Event(type="note", text=text, data=record)]

    def _on_replayed(self, raw: dict[str, Any]) -> list[Event]:
        text = f"{raw.get('method')} replayed {raw.get('updates')} updates of the earlier turns"
        return [Event(type="note", text=text, data=raw)]

    def _on_unanswerable(self, raw: dict[str, Any]) -> list[Event]:
        method = str(raw.get("method"))
        self._unanswerable.append(method)
        self.report.extra.setdefault("unanswerable_requests", []).append(method)
        text = f"the agent asked for {method}; holon's client answered 'method not found'"
        return [Event(type="error", text=text, data={"method": method})]

    def _on_permission(self, raw: dict[str, Any]) -> list[Event]:
        found = raw.get("tool_call")
        tool_call: dict[str, Any] = found if isinstance(found, dict) else {}
        record = {
            "tool_id": tool_call.get("toolCallId"),
            "option": raw.get("option_id"),
            "kind": raw.get("kind"),
        }
        self._permissions.append(record)
        events = self._tool_update(tool_call) if tool_call.get("toolCallId") else []
        answer = raw.get("kind") or "cancelled"
        events.append(Event(type="note", text=f"permission request answered {answer}", data=record))
        return events

    def _on_cancel(self, raw: dict[str, Any]) -> list[Event]:
        return [Event(type="note", text="session/cancel sent to the agent", data=raw)]

    # -- the turn --------------------------------------------------------------------------
    def _on_update(self, raw: dict[str, Any]) -> list[Event]:
        update = raw.get("update")
        if not isinstance(update, dict):
            return []
        events = self._watch_errors(update)
        kind = update.get("sessionUpdate")
        if kind == "agent_message_chunk":
            content = update.get("content")
            text = content.get("text") if isinstance(content, dict) else None
            if isinstance(text, str) and text:
                self._text.append(text)
                events.append(Event(type="message", text=text))
        elif kind in ("tool_call", "tool_call_update"):
            events += self._tool_update(update)
        elif kind == "plan":
            entries = update.get("entries") or []
            self.report.extra["plan"] = entries
            events.append(Event(type="note", text="plan", data={"plan": entries}))
        elif kind == "usage_update":
            keys = ("used", "size", "cost")
            usage = {key: update[key] for key in keys if update.get(key) is not None}
            self.report.extra["acp_usage"] = usage
            events.append(Event(type="usage", data={"acp": usage}))
        return events

    def _watch_errors(self, update: dict[str, Any]) -> list[Event]:
        found = meta_error(update)
        if found is not None:
            self._agent_error = found
            self._broken = self._broken or not found.will_retry
            data = {"http_status": found.http_status, "will_retry": found.will_retry}
            kind: Literal["retry", "error"] = "retry" if found.will_retry else "error"
            return [Event(type=kind, text=found.message, data=data)]
        if system_error(update):
            self._broken = True
        return []

    def _tool_update(self, update: dict[str, Any]) -> list[Event]:
        tool_id = str(update.get("toolCallId"))
        call = self._calls.setdefault(tool_id, ToolCall(tool_id))
        call.merge(update)
        events: list[Event] = []
        finished = call.fields.get("status") in FINISHED
        if not call.announced and (finished or call.ready()):
            call.announced = True
            self.report.tool_calls += 1
            self._text.clear()  # the final answer is the text after the last tool call
            events.append(start_event(call))
        if finished and not call.finished:
            event, outcome = finish(call)
            self.report.record_tool_result(outcome)
            events.append(event)
        return events

    # -- the end ---------------------------------------------------------------------------
    def _on_stop(self, raw: dict[str, Any]) -> list[Event]:
        report = self.report
        report.terminal_seen = True
        report.final_text = "".join(self._text).strip()
        stop = str(raw.get("stop_reason"))
        report.extra["stop_reason"] = stop
        self._usage_from_meta(raw.get("meta"))
        if stop == "end_turn":
            if self._broken:
                found = self._agent_error
                detail = found.message if found else "its session reported a system error"
                status = found.http_status if found else None
                report.is_error, report.reason = True, error_reason(status, detail)
                report.error = f"the ACP agent reported an error and then ended its turn: {detail}"
            elif report.tool_calls == 0 and not report.final_text:
                report.is_error, report.reason, report.error = True, "engine_error", EMPTY_TURN
            else:
                report.is_error = False
        else:
            reason, sentence = STOP_REASONS.get(
                stop, ("engine_error", f"the agent stopped: {stop}")
            )
            report.is_error, report.reason, report.error = True, reason, sentence
        return [
            Event(
                type="result",
                status="error" if report.is_error else "ok",
                data={"stop_reason": stop},
            )
        ]

    def _on_error(self, raw: dict[str, Any]) -> list[Event]:
        report = self.report
        stage, code = str(raw.get("stage")), raw.get("code")
        message = str(raw.get("message") or "")
        report.terminal_seen = True
        report.is_error = True
        report.reason = error_reason(code, message)
        report.error = error_sentence(stage, code, message, self._unanswerable)
        report.final_text = "".join(self._text).strip()
        report.extra["rpc_error"] = {"stage": stage, "code": code, "message": message}
        if isinstance(code, int) and 100 <= code <= 599:
            report.extra["http_status"] = code
        data = {"stage": stage, "code": code, "data": raw.get("data")}
        return [
            Event(type="error", text=report.error, data=data),
            Event(type="result", status="error", data=data),
        ]

    def _on_agent_exit(self, raw: dict[str, Any]) -> list[Event]:
        code = raw.get("code")
        self.report.reason = "engine_crashed"
        self.report.error = (
            f"the ACP agent exited (code {code}) before it answered {raw.get('stage')}"
        )
        return [Event(type="error", text=self.report.error, data={"exit_code": code})]

    def feed_stderr(self, line: str) -> list[Event]:
        events = super().feed_stderr(line)
        if self._retries is None or not self._retries[0].failed_call(line):
            return events
        watch, limit = self._retries
        self._failed_calls += 1
        if self._failed_calls > limit and self.report.abort_reason is None:
            reason = retry_reason(line)
            self.report.reason = self.report.abort_reason = reason
            self.report.error = (
                f"the agent's model calls failed {self._failed_calls} times and it kept "
                f"retrying; holon stopped it after {limit} retries ({watch.variable})"
            )
        return events

    def _usage_from_meta(self, meta: Any) -> None:
        """Token counts some agents put in the prompt answer's ``_meta`` (gemini: ``quota``)."""
        counts = meta.get("quota", {}).get("token_count") if isinstance(meta, dict) else None
        if isinstance(counts, dict):
            usage = {
                k: v for k, v in counts.items() if isinstance(v, int) and k.endswith("_tokens")
            }
            if usage:
                self.report.usage = usage

    def finish(self, exit_code: int | None) -> EngineReport:
        self.report.extra["permissions"] = self._permissions
        return self.report
