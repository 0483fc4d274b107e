"""A run of the replay engine with the OTLP endpoint set sends its trace to a receiver in the
test: one invoke_agent span, execute_tool spans under it, the conventions' attribute names,
TRACEPARENT in the engine's environment; without the variables nothing is sent and no
OpenTelemetry module is imported; without the extra, a warning and the run goes on."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

from holon_core.testing import make_task, run_agent
from holon_core.testing.agent_run import agent_argv, agent_env

from .kit import (
    AGENT_NAME,
    CONVERSATION_ID,
    ERROR_TYPE,
    EXECUTE_TOOL,
    PROVIDER,
    REQUEST_MODEL,
    TOOL_CALL_ID,
    TOOL_NAME,
    children,
    one_agent_span,
)
from .receiver import otlp_receiver

STEPS = [
    {"say": "Writing hello.txt"},
    {"write": {"path": "hello.txt", "content": "hello\n"}},
    {"run": "echo TP=$TRACEPARENT"},
    {"run": "exit 3"},
    {"say": "done"},
]


def test_a_run_sends_invoke_agent_and_execute_tool_spans(tmp_path):
    task = make_task(tmp_path, replay=STEPS)
    with otlp_receiver() as receiver:
        result = run_agent(task, env={"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url})
    assert result.exit_code == 0, result.stderr
    spans = receiver.spans
    agent = one_agent_span(spans)
    assert agent.name == "invoke_agent replay" and agent.kind == "SPAN_KIND_INTERNAL"
    assert agent.parent_id == "" and agent.scope == "holon"
    assert agent.resource["service.name"] == "holon"
    assert result.manifest is not None
    meta = result.manifest["metadata"]
    assert agent.attributes[AGENT_NAME] == "replay"
    assert agent.attributes[PROVIDER] == "replay"  # no model API: the engine names it
    assert agent.attributes[REQUEST_MODEL] == "replay"
    assert agent.attributes[CONVERSATION_ID] == meta["session_id"]
    assert agent.attributes["holon.outcome"] == "success"
    assert agent.attributes["holon.reason"] == "ok"
    assert agent.attributes["holon.files_changed"] == 1
    assert ERROR_TYPE not in agent.attributes and agent.status == "STATUS_CODE_UNSET"
    tools = children(spans, agent, EXECUTE_TOOL)
    assert [(t.name, t.attributes[TOOL_NAME]) for t in tools] == [
        ("execute_tool write", "write"),
        ("execute_tool run", "run"),
        ("execute_tool run", "run"),
    ]
    calls = [e for e in result.events if e["type"] == "tool_call"]
    assert [t.attributes[TOOL_CALL_ID] for t in tools] == [e["tool_id"] for e in calls]
    failed = tools[2]
    assert failed.attributes[ERROR_TYPE] == "tool_error" and failed.status == "STATUS_CODE_ERROR"
    assert failed.attributes["holon.tool.exit_code"] == 3
    assert ERROR_TYPE not in tools[1].attributes
    assert len(spans) == 4
    # the engine was handed TRACEPARENT naming the run's invoke_agent span
    echoed = next(e for e in result.events if "TP=" in e.get("data", {}).get("output", ""))
    assert echoed["data"]["output"].strip() == f"TP=00-{agent.trace_id}-{agent.span_id}-01"


def test_a_failed_run_carries_its_reason_as_error_type(tmp_path):
    task = make_task(tmp_path, replay=[{"say": "giving up"}, {"exit": 4}])
    with otlp_receiver() as receiver:
        result = run_agent(task, env={"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url})
    assert result.exit_code == 1
    agent = one_agent_span(receiver.spans)
    reason = result.reason
    assert agent.attributes["holon.outcome"] == "failure"
    assert agent.attributes[ERROR_TYPE] == reason == agent.attributes["holon.reason"]
    assert agent.status == "STATUS_CODE_ERROR" and agent.status_message


def test_a_given_traceparent_makes_the_run_a_child_span(tmp_path):
    task = make_task(tmp_path, replay=[{"say": "hi"}])
    trace, parent = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
    with otlp_receiver() as receiver:
        env = {
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": f"{receiver.url}/v1/traces",
            "TRACEPARENT": f"00-{trace}-{parent}-01",
            "OTEL_SERVICE_NAME": "ci-pipeline",
        }
        result = run_agent(task, env=env)
    assert result.exit_code == 0, result.stderr
    agent = one_agent_span(receiver.spans)
    assert (agent.trace_id, agent.parent_id) == (trace, parent)
    assert agent.resource["service.name"] == "ci-pipeline"


def test_disabled_or_unsampled_sends_nothing(tmp_path):
    with otlp_receiver() as receiver:
        for name, extra in [
            ("disabled", {"OTEL_SDK_DISABLED": "true"}),
            ("none", {"OTEL_TRACES_EXPORTER": "none"}),
            (
                "unsampled",
                {"TRACEPARENT": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00"},
            ),
        ]:
            task = make_task(tmp_path / name, replay=[{"say": "hi"}])
            result = run_agent(task, env={"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url, **extra})
            assert result.exit_code == 0, result.stderr
    assert receiver.requests == []


#: A run in a fresh interpreter; prints its exit code and every module it imported.
RUN = """
import json, sys
from holon_core.agent.main import main
code = main(sys.argv[1:])
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def test_without_the_variables_nothing_is_sent_and_no_otel_module_imported(tmp_path):
    task = make_task(tmp_path, replay=STEPS)
    argv = agent_argv(task)[3:]  # after: python -m holon_core.agent
    with otlp_receiver() as receiver:
        env = agent_env({"OTEL_SERVICE_NAME": "x"})  # not a variable that asks for traces
        done = subprocess.run(
            [sys.executable, "-c", RUN, *argv],
            env=env,
            capture_output=True,
            text=True,
            check=False,
            cwd=tmp_path,
        )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["code"] == 0, done.stderr
    assert [m for m in result["modules"] if m.startswith("opentelemetry")] == []
    loaded = [m for m in result["modules"] if m.startswith("holon_core.telemetry")]
    assert loaded == ["holon_core.telemetry", "holon_core.telemetry.setting"]  # the env check
    assert "holon_core.agent.run" in result["modules"]  # it was a run, not a probe
    assert receiver.requests == []
    events = (task.output / "evidence" / "events.ndjson").read_text()
    assert "TP=\\n" in events  # and the engine got no TRACEPARENT


def test_without_the_extra_a_warning_and_the_run_goes_on(tmp_path):
    blocked = tmp_path / "blocked" / "opentelemetry"
    blocked.mkdir(parents=True)  # a package that shadows the installed one and fails to import
    (blocked / "__init__.py").write_text("raise ImportError('No module named opentelemetry')\n")
    task = make_task(tmp_path / "task", replay=STEPS)
    with otlp_receiver() as receiver:
        env = {"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url, "PYTHONPATH": str(blocked.parent)}
        result = run_agent(task, env=env)
    assert result.exit_code == 0, result.stderr
    assert result.reason == "ok"
    assert "pip install 'holon-core[otel]'" in result.stderr
    assert receiver.requests == []


def test_an_unreachable_collector_costs_a_warning_not_the_run(tmp_path):
    task = make_task(tmp_path, replay=[{"say": "hi"}])
    env = {
        "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9",  # discard port: refused
        "OTEL_EXPORTER_OTLP_TIMEOUT": "1",
    }
    result = run_agent(task, env=env)
    assert result.exit_code == 0, result.stderr
    assert "warning: traces:" in result.stderr
    assert Path(task.output / "manifest.json").exists()


def test_a_collector_that_never_answers_holds_the_run_up_one_second_at_most(tmp_path):
    """The exporter's own timeout (10 s by default, with retries) is not the run's: the
    export gives up after holon's budget of 1 s, says so, and the run ends as it would."""
    task = make_task(tmp_path, replay=[{"say": "hi"}])
    with socket.create_server(("127.0.0.1", 0)) as silent:  # accepts, never answers
        env = {"OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{silent.getsockname()[1]}"}
        result = run_agent(task, env=env)
        held, _ = silent.accept()  # the exporter did connect: it was waiting on us
        held.close()
    assert result.exit_code == 0, result.stderr
    assert result.reason == "ok"
    assert "did not deliver" in result.stderr and "within 1 s" in result.stderr, result.stderr
    assert "they were dropped" in result.stderr


def test_a_planted_evidence_link_is_not_followed(tmp_path):
    """The engine swaps ``evidence/`` for a link to a dir of its own making: the spans come
    from holon's record or not at all, never from the planted files."""
    planted = tmp_path / "planted"
    planted.mkdir()
    fake = {"seq": 1, "ts": 0.1, "type": "tool_call", "tool": "planted", "tool_id": "x"}
    (planted / "events.ndjson").write_text(json.dumps(fake) + "\n")
    (planted / "model-calls.ndjson").write_text(
        json.dumps({"kind": "model", "time": "2026-01-01T00:00:00.000Z", "model": "planted"}) + "\n"
    )
    swap = f"mv {{output}}/evidence {{output}}/moved && ln -s {planted} {{output}}/evidence"
    task = make_task(tmp_path / "task", replay=[{"run": swap}, {"say": "done"}])
    with otlp_receiver() as receiver:
        result = run_agent(task, env={"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url})
    assert result.manifest is not None, result.stderr
    assert one_agent_span(receiver.spans)
    names = [s.name for s in receiver.spans]
    assert not [n for n in names if "planted" in n], names
