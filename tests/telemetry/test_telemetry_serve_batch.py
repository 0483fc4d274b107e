"""Serve turns and batch cells with the OTLP endpoint set: an invoke_agent span per turn,
and a holon batch's invoke_workflow span with each cell's run under it."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

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


def test_each_serve_turn_is_an_invoke_agent_span(tmp_path):
    for name in ("input", "output", "workspace", "state"):
        (tmp_path / name).mkdir()
    (tmp_path / "workspace" / "README.md").write_text("hello\n")
    for turn, steps in [("one", [{"run": "echo TP=$TRACEPARENT"}]), ("two", [{"say": "ok"}])]:
        context = tmp_path / "input" / "turns" / turn / "context"
        context.mkdir(parents=True)
        (context / "replay.yaml").write_text(yaml.safe_dump([*steps, {"say": "done"}]))
    args = ["--engine", "replay"]
    for name in ("input", "output", "workspace", "state"):
        args += [f"--{name}", str(tmp_path / name)]
    socket = tmp_path / "ipc" / "agent.sock"
    with otlp_receiver() as receiver:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("HOLON_", "OTEL_"))}
        env["OTEL_EXPORTER_OTLP_ENDPOINT"] = receiver.url
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


def test_batch_cells_run_under_the_batch_span(tmp_path):
    steps: list[dict[str, object]] = [{"write": {"path": "a.txt", "content": "a\n"}}, {"say": "ok"}]
    job = write_job(tmp_path, replay_tasks(tmp_path, 2, steps), ["replay"], name="traced")
    with otlp_receiver() as receiver:
        done = run_batch(job, env={"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url})
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
