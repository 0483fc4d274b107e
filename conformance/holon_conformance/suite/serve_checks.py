"""SERVE-* checks: ``holon-agent serve`` with the adapter, judged from one shared session.

The session (:mod:`serve_session`) is run once per adapter and cached on the target; each
check reads the facts it needs. Every check's name starts with ``test_serve_`` (``-k`` selects
or leaves out the serve rows). The wire shapes follow Open Responses (openresponses.org):
a ``response`` object, SSE events whose ``event:`` is the body's ``type``, error objects;
every response and event is judged by the official schema (:mod:`open_responses`).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest

from holon_conformance.suite import open_responses
from holon_conformance.suite.marks import CheckBase, req
from holon_conformance.suite.serve_session import (
    FINAL_TEXT,
    MARKS,
    STATELESS_MARK,
    TOOL_COMMAND,
    ServeRecord,
    Turn,
)

if TYPE_CHECKING:
    from holon_conformance.suite.harness import Target

TERMINAL = {"response.completed", "response.failed", "response.incomplete"}


def _session(target: Target) -> ServeRecord:
    record = target.serve()
    if record.health is None:
        pytest.fail(f"holon-agent serve never became ready\n{record.describe()}")
    return record


def _turn(record: ServeRecord, index: int) -> Turn:
    if len(record.turns) <= index:
        pytest.fail(f"the session ended before turn {index + 1}\n{record.describe()}")
    return record.turns[index]


def _error_object(body: Any) -> bool:
    error = body.get("error") if isinstance(body, dict) else None
    return isinstance(error, dict) and isinstance(error.get("message"), str)


def _json(data: bytes) -> Any:
    try:
        return json.loads(data.decode("utf-8"))
    except ValueError:
        return None


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


class BaseServe(CheckBase):
    @req("SERVE-001")
    def test_serve_health_on_a_private_socket(self, holon_target: Target) -> None:
        record = _session(holon_target)
        assert record.health is not None
        body = _json(record.health.body)
        assert isinstance(body, dict), f"/health is not a JSON object: {record.health.body[:200]!r}"
        assert holon_target.name in _strings(body), f"/health does not name the engine: {body}"
        assert record.socket_mode == 0o600, f"socket mode {oct(record.socket_mode or 0)}"

    @req("SERVE-002")
    def test_serve_plain_answer_is_one_response_object(self, holon_target: Target) -> None:
        one = _turn(_session(holon_target), 0)
        body = _json(one.body)
        assert one.status == 200 and isinstance(body, dict), f"turn 1: {one.status} {one.text}"
        assert body.get("object") == "response" and isinstance(body.get("id"), str), body
        assert body.get("status") == "completed", f"turn 1 ended {body.get('status')!r}"
        texts = [
            part.get("text")
            for item in body.get("output") or []
            if isinstance(item, dict) and item.get("type") == "message"
            for part in item.get("content") or []
            if isinstance(part, dict) and part.get("type") == "output_text"
        ]
        assert any(texts), (
            f"no output_text in the response's output: {body.get('output')} (the model "
            f"answered {FINAL_TEXT!r}: the adapter's parser must return it as a message event)"
        )

    @req("SERVE-003")
    def test_serve_stream_is_open_responses_sse(self, holon_target: Target) -> None:
        two = _turn(_session(holon_target), 1)
        assert two.status == 200, f"turn 2: {two.status} {two.text[:500]}"
        assert two.headers.get("content-type", "").startswith("text/event-stream")
        events = [e for e in two.events if e.raw != "[DONE]"]
        assert events and two.events[-1].raw == "[DONE]", "the stream does not end with [DONE]"
        types = [e.data.get("type") if isinstance(e.data, dict) else None for e in events]
        assert all(e.event == t for e, t in zip(events, types, strict=True)), (
            f"event: names differ from the bodies' type: {[e.event for e in events][:5]}"
        )
        numbers = [e.data.get("sequence_number") for e in events]
        assert all(isinstance(n, int) for n in numbers), "an event has no sequence_number"
        assert numbers == sorted(set(numbers)), f"sequence_number not increasing: {numbers}"
        assert types[0] == "response.created", f"first event {types[0]!r}"
        assert types[-1] in TERMINAL, f"last event {types[-1]!r}"
        assert "response.output_text.delta" in types, (
            f"no output_text delta was streamed (the model answered {FINAL_TEXT!r}: the "
            "adapter's parser must return it as a message event)"
        )

    @req("SERVE-004")
    def test_serve_turn_dir_holds_the_record(self, holon_target: Target) -> None:
        record = _session(holon_target)
        one, two, three = _turn(record, 0), _turn(record, 1), _turn(record, 2)
        seen = []
        for turn in (one, two, three):
            folder = record.turn_dir(turn)
            for name in ("manifest.json", "diff.patch", "summary.md", "evidence", "turn.json"):
                assert (folder / name).exists(), f"{folder} has no {name}"
            manifest = json.loads((folder / "manifest.json").read_text("utf-8"))
            assert manifest["metadata"].get("mode") == "serve", "metadata.mode is not 'serve'"
            seen.append(json.loads((folder / "turn.json").read_text("utf-8")))
        for key in ("session_id", "turn_id", "response_id", "previous_response_id"):
            assert all(key in data for data in seen), f"turn.json lacks {key}: {seen}"
        assert seen[0]["response_id"] == one.response.get("id")
        assert seen[1]["previous_response_id"] == seen[0]["response_id"]
        assert seen[2]["previous_response_id"] == seen[1]["response_id"]
        assert len({data["session_id"] for data in seen}) == 1, "a turn left the session"

    @req("SERVE-005")
    def test_serve_events_file_is_the_stream(self, holon_target: Target) -> None:
        record = _session(holon_target)
        two = _turn(record, 1)
        path = record.turn_dir(two) / "events.ndjson"
        assert path.is_file(), f"no {path}"
        written = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line]
        sent = [e.data for e in two.events if e.raw != "[DONE]"]
        assert written == sent, (
            f"events.ndjson ({len(written)} events) differs from the stream ({len(sent)})"
        )

    @req("SERVE-006")
    def test_serve_previous_response_id_continues_the_session(self, holon_target: Target) -> None:
        record = _session(holon_target)
        turns = [_turn(record, index) for index in range(3)]
        if holon_target.adapter.model_api is not None:
            shown = ["\n".join(turn.model_requests) for turn in turns]
            where = "the model requests"
        else:  # an offline engine: its replay script shows the prompt it was given
            shown, where = [turn.text for turn in turns], "the engine's output"
        assert MARKS[1] not in shown[0], "turn 1 already saw turn 2's input"
        for index in (1, 2):
            assert MARKS[index] in shown[index], (
                f"turn {index + 1}'s input never reached the engine ({where})"
            )
            missing = [mark for mark in MARKS[:index] if mark not in shown[index]]
            assert not missing, (
                f"turn {index + 1} continued the session (previous_response_id) but {where} "
                f"of turn {index + 1} do not carry the earlier turns' inputs {missing}"
            )

    @req("SERVE-013")
    def test_serve_stateless_history_reaches_the_engine(self, holon_target: Target) -> None:
        record = _session(holon_target)
        turn = record.stateless
        assert turn is not None, f"the session ended before the stateless turn\n{record.describe()}"
        assert turn.status == 200, (
            f"input carrying the earlier turns (user and assistant messages) was refused: "
            f"HTTP {turn.status} {turn.text[:300]}"
        )
        if holon_target.adapter.model_api is not None:
            shown, where = "\n".join(turn.model_requests), "the model requests"
        else:
            shown, where = turn.text, "the engine's output"
        missing = [m for m in (*MARKS[:2], STATELESS_MARK) if m not in shown]
        assert not missing, (
            f"a stateless request carried turns 1 and 2 as messages, but {where} of its turn "
            f"lack {missing}"
        )

    @req("SERVE-007")
    def test_serve_unknown_previous_response_is_404(self, holon_target: Target) -> None:
        reply = _session(holon_target).unknown_previous
        assert reply is not None, "the session ended before the unknown-id request"
        assert reply.status == 404, f"unknown previous_response_id: HTTP {reply.status}"
        assert _error_object(_json(reply.body)), f"not an error object: {reply.body[:300]!r}"

    @req("SERVE-008")
    def test_serve_turns_are_serial(self, holon_target: Target) -> None:
        record = _session(holon_target)
        _turn(record, 3)
        if record.busy_waited:
            return  # it waited for the turn in flight: serial by waiting
        busy = record.busy
        assert busy is not None, "no second request was made while turn 4 ran"
        assert busy.status == 409, f"a request during a turn got HTTP {busy.status}"
        assert _error_object(_json(busy.body)), f"not an error object: {busy.body[:300]!r}"

    @req("SERVE-009")
    def test_serve_cancel_records_a_cancelled_turn(self, holon_target: Target) -> None:
        record = _session(holon_target)
        hanging = _turn(record, 3)
        assert record.cancel is not None and record.cancel.status == 200, (
            f"cancel answered {record.cancel and record.cancel.status}"
        )
        types = [e.data.get("type") for e in hanging.events if isinstance(e.data, dict)]
        assert types and types[-1] in TERMINAL, f"turn 4's stream ended with {types[-1:]}"
        manifest = record.turn_dir(hanging) / "manifest.json"
        assert manifest.is_file(), f"the cancelled turn left no {manifest}"
        data = json.loads(manifest.read_text("utf-8"))
        reason = data.get("metadata", {}).get("reason")
        assert reason == "cancelled", f"cancelled turn recorded {data.get('outcome')}/{reason}"

    @req("SERVE-010")
    def test_serve_shutdown_exits_cleanly(self, holon_target: Target) -> None:
        record = _session(holon_target)
        assert record.shutdown is not None, f"/shutdown was never reached\n{record.describe()}"
        assert record.shutdown.status in (200, 202), f"/shutdown: HTTP {record.shutdown.status}"
        assert record.exit_code == 0, f"serve exited {record.exit_code}\n{record.describe()}"
        assert not record.socket_left, "the socket file is still there after shutdown"
        assert not record.leftovers, f"processes left after shutdown: {record.leftovers}"

    @req("SERVE-011")
    def test_serve_responses_and_events_follow_the_schema(self, holon_target: Target) -> None:
        record = _session(holon_target)
        _turn(record, 1)
        problems: list[str] = []
        for number, turn in enumerate(record.turns, 1):
            events = [e.data for e in turn.events if e.raw != "[DONE]"]
            if events:
                problems += [f"turn {number} {p}" for p in open_responses.stream_errors(events)]
            elif turn.status == 200:
                errors = open_responses.response_errors(_json(turn.body))
                problems += [f"turn {number} response: {error}" for error in errors]
        assert not problems, (
            f"not valid per {open_responses.SPEC}: a client generated from the spec rejects "
            "them\n" + "\n".join(problems[:20])
        )

    @req("SERVE-012")
    def test_serve_engine_tools_are_function_calls(self, holon_target: Target) -> None:
        two = _turn(_session(holon_target), 1)
        events = [e.data for e in two.events if isinstance(e.data, dict)]
        done = [
            e["item"]
            for e in events
            if e.get("type") == "response.output_item.done" and isinstance(e.get("item"), dict)
        ]
        calls = [item for item in done if item.get("type") == "function_call"]
        assert calls, (
            f"turn 2 had the engine run `{TOOL_COMMAND}`, but its stream finished no "
            f"function_call item (items done: {[item.get('type') for item in done]})"
        )
        argued = {
            e.get("item_id")
            for e in events
            if e.get("type") == "response.function_call_arguments.done"
        }
        answered = {
            item.get("call_id") for item in done if item.get("type") == "function_call_output"
        }
        final = [
            item.get("id") for item in two.response.get("output") or [] if isinstance(item, dict)
        ]
        for call in calls:
            name = f"function_call {call.get('name')!r} ({call.get('call_id')})"
            assert call.get("id") in argued, f"{name}: no response.function_call_arguments.done"
            assert call.get("call_id") in answered, f"{name}: no function_call_output item"
            assert call.get("id") in final, f"{name}: missing from the final response's output"
