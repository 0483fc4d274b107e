"""Serve turns and batch cells with the OTLP endpoint set: an invoke_agent span per turn,
and a holon batch's invoke_workflow span with each cell's run under it."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import httpx
import pytest
import yaml

from holon_core.serve.client import ServeClient, start_server
from tests.batch.kit import replay_tasks, results, run_batch, write_job

from .kit import (
    EXECUTE_TOOL,
    INVOKE_AGENT,
    INVOKE_WORKFLOW,
    OPERATION,
    WORKFLOW_NAME,
    children,
)
from .receiver import otlp_receiver


def serve_args(root: Path, turns: dict[str, list[dict[str, object]]]) -> list[str]:
    """holon-agent serve's flags for a replay session under ``root``, each turn's steps in
    its input dir (then a last ``say``)."""
    for name in ("input", "output", "workspace", "state"):
        (root / name).mkdir()
    (root / "workspace" / "README.md").write_text("hello\n")
    for turn, steps in turns.items():
        context = root / "input" / "turns" / turn / "context"
        context.mkdir(parents=True)
        (context / "replay.yaml").write_text(yaml.safe_dump([*steps, {"say": "done"}]))
    args = ["--engine", "replay"]
    for name in ("input", "output", "workspace", "state"):
        args += [f"--{name}", str(root / name)]
    return args


def traced_env(receiver_url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HOLON_", "OTEL_"))}
    return {**env, "OTEL_EXPORTER_OTLP_ENDPOINT": receiver_url}


def test_each_serve_turn_is_an_invoke_agent_span(tmp_path: Path) -> None:
    args = serve_args(tmp_path, {"one": [{"run": "echo TP=$TRACEPARENT"}], "two": [{"say": "ok"}]})
    socket = tmp_path / "ipc" / "agent.sock"
    with otlp_receiver() as receiver:
        env = traced_env(receiver.url)
        process = start_server(socket, args, env=env, stderr=subprocess.DEVNULL)
        with ServeClient(socket) as client:
            first = client.create("first", holon={"turn_id": "one"})
            second = client.create(
                "second", holon={"turn_id": "two"}, previous_response_id=first["id"]
            )
            assert first["status"] == second["status"] == "completed", (first, second)
            client.shutdown()
        assert process.wait(timeout=60) == 0
    agents = [s for s in receiver.spans if s.attributes.get(OPERATION) == INVOKE_AGENT]
    assert len(agents) == 2 and agents[0].span_id != agents[1].span_id
    assert {a.attributes["holon.mode"] for a in agents} == {"serve"}
    first_turn = min(agents, key=lambda s: s.start_ns)
    assert len(children(receiver.spans, first_turn, EXECUTE_TOOL)) == 1
    assert len(receiver.spans) == 3
    events = (tmp_path / "output" / "turns" / "one" / "evidence" / "events.ndjson").read_text()
    assert f"TP=00-{first_turn.trace_id}-{first_turn.span_id}-01" in events


def test_a_clients_traceparent_header_parents_its_turn(tmp_path: Path) -> None:
    """A W3C ``traceparent`` header on POST /v1/responses makes that turn's invoke_agent span
    a child of the client's span (its ``tracestate`` handed on too); a turn without a valid
    one stays under the server's own TRACEPARENT."""
    echo: list[dict[str, object]] = [{"run": "echo TP=$TRACEPARENT TS=$TRACESTATE"}]
    args = serve_args(tmp_path, {"one": echo, "two": echo})
    socket = tmp_path / "ipc" / "agent.sock"
    server_trace, client_trace = "1" * 32, "2" * 32
    with otlp_receiver() as receiver:
        env = traced_env(receiver.url)
        env["TRACEPARENT"] = f"00-{server_trace}-{'a' * 16}-01"
        process = start_server(socket, args, env=env, stderr=subprocess.DEVNULL)
        transport = httpx.HTTPTransport(uds=str(socket))
        with httpx.Client(transport=transport, base_url="http://holon", timeout=120) as http:
            for turn, header in [
                ("one", {"traceparent": f"00-{client_trace}-{'b' * 16}-01", "tracestate": "c=1"}),
                ("two", {"traceparent": "not-a-traceparent"}),
            ]:
                body = {"input": turn, "holon": {"turn_id": turn}}
                answer = http.post("/v1/responses", json=body, headers=header)
                assert answer.json()["status"] == "completed", answer.text
            http.post("/shutdown")
        assert process.wait(timeout=60) == 0
    agents = {s.trace_id: s for s in receiver.spans if s.attributes.get(OPERATION) == INVOKE_AGENT}
    assert sorted(agents) == [server_trace, client_trace]
    assert agents[client_trace].parent_id == "b" * 16
    assert agents[server_trace].parent_id == "a" * 16
    events = (tmp_path / "output" / "turns" / "one" / "evidence" / "events.ndjson").read_text()
    assert f"TP=00-{client_trace}-{agents[client_trace].span_id}-01 TS=c=1" in events


@pytest.mark.parametrize("executor", ["local", "ray"])
def test_batch_cells_run_under_the_batch_span(tmp_path: Path, executor: str) -> None:
    """Each cell's run is a child of the batch's span; a Ray cell gets it with its task (the
    job's own Ray here, whose workers have the driver's OTEL_* variables)."""
    steps: list[dict[str, object]] = [{"write": {"path": "a.txt", "content": "a\n"}}, {"say": "ok"}]
    job = write_job(tmp_path, replay_tasks(tmp_path, 2, steps), ["replay"], name="traced")
    with otlp_receiver() as receiver:
        env = {"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url, "RAY_AUTH_MODE": "disabled"}
        done = run_batch(job, "--executor", executor, env=env)
    assert done.returncode == 0, done.stderr + done.stdout
    rows = results(tmp_path / "job.results")
    assert [r["outcome"] for r in rows] == ["success", "success"]
    spans = receiver.spans
    (batch,) = [s for s in spans if s.attributes.get(OPERATION) == INVOKE_WORKFLOW]
    assert batch.name == "invoke_workflow traced" and batch.parent_id == ""
    assert batch.attributes[WORKFLOW_NAME] == "traced"
    assert batch.attributes["holon.batch.cells"] == 2
    assert batch.attributes["holon.batch.succeeded"] == 2
    cells = children(spans, batch, INVOKE_AGENT)
    assert len(cells) == 2
    for cell in cells:
        assert len(children(spans, cell, EXECUTE_TOOL)) == 1
    assert len(spans) == 1 + 2 + 2
    assert all(Path(r["run_dir"]).exists() for r in rows)
