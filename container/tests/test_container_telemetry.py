"""``holon run --container`` with the OpenTelemetry variables set: the run inside the container
exports its spans to a collector on the host's loopback (an OTLP/HTTP receiver in the test),
with the caller's service name and headers, as a child of the caller's ``TRACEPARENT``."""

from __future__ import annotations

from pathlib import Path

from conftest import IMAGE
from test_container_run import holon_run

from tests.telemetry.kit import EXECUTE_TOOL, children, one_agent_span
from tests.telemetry.receiver import otlp_receiver

#: The caller's span (a CI job's, say): the run's invoke_agent span must be its child.
TRACE_ID = "0af7651916cd43dd8448eb211c80319c"
PARENT_ID = "b7ad6b7169203331"


def test_the_run_in_the_container_exports_its_spans_to_the_hosts_collector(
    podman: str, hello: Path, tmp_path: Path
) -> None:
    context = tmp_path / "context"
    context.mkdir()
    (context / "replay.yaml").write_text(
        '- run: "echo TP=$TRACEPARENT"\n'
        '- write: {path: hello.txt, content: "hello from holon\\n"}\n'
        "- say: done\n"
    )
    with otlp_receiver() as receiver:
        env = {
            "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url,
            "OTEL_SERVICE_NAME": "holon-in-ci",
            "OTEL_EXPORTER_OTLP_HEADERS": "x-holon-team=containers",
            "TRACEPARENT": f"00-{TRACE_ID}-{PARENT_ID}-01",
            "TRACESTATE": "ci=container",
        }
        args = ("--context", str(context), "--container", IMAGE)
        result, output = holon_run(tmp_path, "traced", hello, "replay", *args, env=env)
    assert result["outcome"] == "success", result
    agent = one_agent_span(receiver.spans)
    assert (agent.trace_id, agent.parent_id) == (TRACE_ID, PARENT_ID)
    assert agent.resource["service.name"] == "holon-in-ci"
    assert agent.attributes["holon.outcome"] == "success"
    assert len(children(receiver.spans, agent, EXECUTE_TOOL)) == 2  # the run and the write
    assert len(receiver.spans) == 3
    sent = [{k.lower(): v for k, v in headers.items()} for headers in receiver.requests]
    assert [h.get("x-holon-team") for h in sent] == ["containers"]
    # the engine inside was handed the run's own span
    events = (output / "evidence" / "events.ndjson").read_text()
    assert f"TP=00-{TRACE_ID}-{agent.span_id}-01" in events
