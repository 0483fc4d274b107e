"""Which OpenTelemetry variables ask for traces, and the W3C trace context holon hands on
(pure functions: no OpenTelemetry import), plus the console exporter of a real run."""

from __future__ import annotations

import json

from holon_core.telemetry.setting import new_context, parse_traceparent, wanted
from holon_core.testing import make_task, run_agent


def test_which_variables_ask_for_traces():
    assert wanted({}).exporters == ()
    assert wanted({"OTEL_SERVICE_NAME": "x"}).exporters == ()
    assert wanted({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}).exporters == ("otlp",)
    assert wanted({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c/v1/traces"}).exporters == (
        "otlp",
    )
    assert wanted({"OTEL_TRACES_EXPORTER": "console"}).exporters == ("console",)
    both = {"OTEL_TRACES_EXPORTER": "otlp, console", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c"}
    assert wanted(both).exporters == ("otlp", "console")
    endpoint = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}
    assert wanted({**endpoint, "OTEL_SDK_DISABLED": "TRUE"}).exporters == ()
    assert wanted({**endpoint, "OTEL_TRACES_EXPORTER": "none"}).exporters == ()


def test_what_holon_cannot_export_is_named():
    grpc = wanted(
        {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}
    )
    assert grpc.exporters == ()
    assert "http/protobuf" in grpc.problems[0] and "4318" in grpc.problems[0]
    zipkin = wanted({"OTEL_TRACES_EXPORTER": "zipkin,console"})
    assert zipkin.exporters == ("console",)
    assert "zipkin" in zipkin.problems[0] and "otlp or console" in zipkin.problems[0]


def test_traceparent_parsing_and_the_context_handed_on():
    trace, span = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
    assert parse_traceparent(f"00-{trace}-{span}-01") == (int(trace, 16), int(span, 16), True)
    assert parse_traceparent(f"00-{trace}-{span}-00") == (int(trace, 16), int(span, 16), False)
    for bad in ("", "junk", f"ff-{trace}-{span}-01", f"00-{'0' * 32}-{span}-01",
                f"00-{trace}-{'0' * 16}-01", f"00-{trace.upper()}-{span}-01",
                f"00-{trace}-{span}-01-extra"):  # fmt: skip
        assert parse_traceparent(bad) is None, bad
    joined = new_context({"TRACEPARENT": f"00-{trace}-{span}-01", "TRACESTATE": "v=1"}, 5)
    assert (joined.trace_id, joined.parent_id, joined.start_ns) == (
        int(trace, 16),
        int(span, 16),
        5,
    )
    assert joined.child_env() == {
        "TRACEPARENT": f"00-{trace}-{joined.span_id:016x}-01",
        "TRACESTATE": "v=1",
    }
    fresh = new_context({"TRACEPARENT": "garbage"}, 0)
    assert fresh.parent_id is None and fresh.trace_id != int(trace, 16)
    assert parse_traceparent(fresh.traceparent()) == (fresh.trace_id, fresh.span_id, True)


def test_the_console_exporter_writes_the_spans_to_stderr(tmp_path):
    task = make_task(tmp_path, replay=[{"run": "true"}, {"say": "ok"}])
    result = run_agent(task, env={"OTEL_TRACES_EXPORTER": "console"})
    assert result.exit_code == 0, result.stderr
    assert result.stdout == ""  # stdout stays the caller's
    start = result.stderr.index("{")
    names = []
    decoder = json.JSONDecoder()
    text = result.stderr[start:]
    while "{" in text:
        span, end = decoder.raw_decode(text[text.index("{") :])
        names.append(span["name"])
        text = text[text.index("{") + end :]
    assert names == ["invoke_agent replay", "execute_tool run"]
