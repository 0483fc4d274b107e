"""The engine's tools as Open Responses items: the mapping of normalized events, event by event.

The end-to-end tests (``test_serve_session.py``, the conformance SERVE-011/012 rows of every
adapter) show the usual path; these cover what a scripted engine cannot easily make: a result
amended after the run (Gemini's exit codes), a failed command, a call left unanswered, an
engine's retry and error events (none reaches the stream).
"""

from __future__ import annotations

import json
from typing import Any

from holon_core.engine.events import Event
from holon_core.serve.stream import TurnStream


def _stream() -> tuple[TurnStream, list[dict[str, Any]]]:
    sent: list[dict[str, Any]] = []
    return TurnStream(sent.append, redact=lambda text: text.replace("s3cret", "[REDACTED]")), sent


def test_a_failed_command_and_its_later_exit_code_stay_spec_items(check_open_responses):
    stream, sent = _stream()
    args = {"input": {"command": "make test TOKEN=s3cret"}}  # as Gemini's parser gives it
    stream.feed(Event("tool_call", tool="run_shell_command", tool_id="c1", data=args))
    stream.feed(Event("tool_result", tool_id="c1", status="error", data={"output": "boom"}))
    stream.feed(
        Event("tool_result", tool_id="c1", status="error", data={"exit_code": 2, "amended": True})
    )
    check_open_responses(sent)

    # only the spec's own events: the official compliance tester rejects any other type, so the
    # later exit code reaches the client in the final response's output, not in an extension
    types = [e["type"] for e in sent]
    assert types == [
        "response.output_item.added",
        "response.function_call_arguments.delta",
        "response.function_call_arguments.done",
        "response.output_item.done",
        "response.output_item.added",
        "response.output_item.done",
    ]
    call, result = stream.output
    assert call["type"] == "function_call" and call["name"] == "run_shell_command"
    assert "[REDACTED]" in call["arguments"] and "s3cret" not in call["arguments"]
    assert result["type"] == "function_call_output" and result["call_id"] == "c1"
    assert result["status"] == "completed"  # the spec's status: the output item is complete
    assert result["output"] == "boom"  # the amendment brought no output: the first one stays
    assert result["holon"] == {
        "status": "failed",
        "exit_code": 2,
        "command": "make test TOKEN=[REDACTED]",
    }
    assert sent[-1]["item"]["holon"]["exit_code"] is None  # streamed before the amendment
    assert sent[4]["item"]["output"] == "" and sent[4]["item"]["status"] == "in_progress"


def test_a_call_without_result_is_a_completed_call_and_nothing_else(check_open_responses):
    stream, sent = _stream()
    stream.feed(Event("tool_call", tool="Bash", tool_id="c2", data={"input": {"command": "ls"}}))
    stream.feed(Event("tool_result", tool_id="unknown", data={"output": "stray"}))
    stream.close_open_items()
    check_open_responses(sent)
    assert [item["type"] for item in stream.output] == ["function_call"]
    assert stream.output[0]["status"] == "completed"
    # arguments: the tool's own input, as the model wrote it (not holon's wrapper around it)
    assert json.loads(stream.output[0]["arguments"]) == {"command": "ls"}


def test_engine_retries_and_errors_stay_out_of_the_stream(check_open_responses):
    stream, sent = _stream()
    stream.feed(Event("retry", text="overloaded, retrying", data={"attempt": 1}))
    stream.feed(Event("error", text="model metadata not found", data={"fatal": False}))
    stream.feed(Event("message", text="done"))
    check_open_responses(sent)
    assert not [e for e in sent if not e["type"].startswith("response.")]
