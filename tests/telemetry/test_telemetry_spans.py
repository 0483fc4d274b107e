"""Spans from record lines no engine test produces: Google's API, a rate-limited call, a
side call, a needs_human run, an amended tool result."""

from __future__ import annotations

from opentelemetry.semconv._incubating.attributes.gen_ai_attributes import (
    GenAiOperationNameValues,
    GenAiProviderNameValues,
)

from holon_core.telemetry.setting import new_context
from holon_core.telemetry.spans import agent_span, chat_span, tool_spans

from .kit import ERROR_TYPE, OPERATION, PROVIDER

CALL = {
    "time": "2026-11-26T10:00:01.500Z",
    "api": "google-generate-content",
    "kind": "model",
    "model": "gemini-2.5-flash",
    "status": 200,
    "attempt": 1,
    "latency_ms": {"first_byte": 100.0, "total": 500.0},
    "usage": {"input_tokens": 10, "output_tokens": 5},
    "cost_usd": 0.0001,
}
START = 1_795_000_000_000_000_000


def _agent(outcome: str = "success", reason: str = "ok"):
    context = new_context({}, START)
    manifest = {"outcome": outcome, "metadata": {"reason": reason, "engine": {"name": "gemini"}}}
    return agent_span(context, manifest, START + 10**12, "google-generate-content")


def test_google_calls_are_generate_content_spans_with_their_own_times():
    agent = _agent()
    span = chat_span(agent, CALL)
    assert span is not None
    assert span.name == "generate_content gemini-2.5-flash" and span.kind == "client"
    assert span.attributes[OPERATION] == GenAiOperationNameValues.GENERATE_CONTENT.value
    assert span.attributes[PROVIDER] == GenAiProviderNameValues.GCP_GEMINI.value
    assert span.end_ns - span.start_ns == 500_000_000 and span.parent_id == agent.span_id
    assert span.error is None and ERROR_TYPE not in span.attributes


def test_a_rate_limited_call_is_an_error_and_a_side_call_no_span():
    agent = _agent()
    limited = chat_span(agent, {**CALL, "status": 429, "usage": None, "cost_usd": None})
    assert limited is not None
    assert limited.attributes[ERROR_TYPE] == "429" and limited.error == "HTTP 429"
    assert chat_span(agent, {**CALL, "kind": "count_tokens"}) is None
    assert chat_span(agent, {**CALL, "time": "not a time"}) is None


def test_needs_human_is_no_error_and_failure_is():
    assert _agent("needs_human", "secrets_in_changes").error is None
    failed = _agent("failure", "timeout")
    assert failed.attributes[ERROR_TYPE] == "timeout" and failed.error == "timeout"


def test_an_amended_tool_result_corrects_the_status_not_the_end():
    agent = _agent()
    events = [
        {"ts": 1.0, "type": "tool_call", "tool": "run_shell_command", "tool_id": "a"},
        {"ts": 2.0, "type": "tool_result", "tool_id": "a", "status": "ok"},
        {"ts": 9.0, "type": "tool_result", "tool_id": "a", "status": "error",
         "data": {"amended": True, "exit_code": 2}},
        {"ts": 3.0, "type": "tool_call", "tool": "read_file", "tool_id": "b"},
    ]  # fmt: skip
    shell, read = tool_spans(agent, START, events)
    assert (shell.start_ns, shell.end_ns) == (START + 10**9, START + 2 * 10**9)
    assert shell.attributes[ERROR_TYPE] == "tool_error" and shell.error == "exit code 2"
    assert read.end_ns == agent.end_ns  # no result: it ran until the run ended


def test_a_record_of_the_wrong_shape_still_gives_its_spans(tmp_path):
    """Fields of the wrong type (an RFC-0002 agent's manifest, a damaged line) are read as
    absent, as record.py promises: the run still gets its agent, chat and tool spans."""
    import json

    from holon_core.telemetry.spans import run_spans

    out = tmp_path / "output"
    (out / "evidence").mkdir(parents=True)
    meta = {"engine": "a string", "adapter": ["x"], "gateway": ["x"], "usage": [1], "tools": 5}
    (out / "manifest.json").write_text(json.dumps({"outcome": "success", "metadata": meta}))
    calls = [{**CALL, "latency_ms": [1], "usage": "many"}]
    (out / "evidence" / "model-calls.ndjson").write_text(
        "".join(json.dumps(c) + "\n" for c in calls)
    )
    events = [
        {"ts": "soon", "type": "tool_call", "tool": "read_file", "tool_id": "a"},
        {"ts": 2.0, "type": "tool_result", "tool_id": "a", "data": "a string"},
    ]
    (out / "evidence" / "events.ndjson").write_text("".join(json.dumps(e) + "\n" for e in events))
    spans = run_spans(new_context({}, START), out, START + 10**12, None)
    assert [s.attributes[OPERATION] for s in spans] == ["invoke_agent", "generate_content",
                                                         "execute_tool"]  # fmt: skip
