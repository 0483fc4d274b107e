"""The replay engine and runs that end before any engine: their trajectories pass Harbor's
validator too (ATIF wants at least one step: a refused run has one saying why)."""

from __future__ import annotations

import json
from typing import Any

from holon_core.testing import make_task, run_agent

from .harbor import assert_atif_valid

WRITE_AND_RUN: list[dict[str, Any]] = [
    {"say": "Writing hello.txt"},
    {"write": {"path": "hello.txt", "content": "hello from holon\n"}},
    {"run": "cat hello.txt"},
    {"run": "exit 3"},
    {"say": "Wrote hello.txt and checked it."},
]


def test_a_replay_run_writes_a_valid_trajectory(tmp_path):
    result = run_agent(make_task(tmp_path, replay=WRITE_AND_RUN, goal="Create hello.txt"))
    path = result.output_dir / "evidence" / "trajectory.json"
    assert_atif_valid(path)
    document = json.loads(path.read_text())
    assert document["agent"]["name"] == "replay"
    calls = [c for s in document["steps"] for c in s.get("tool_calls", [])]
    results = [r for s in document["steps"] for r in s.get("observation", {}).get("results", [])]
    assert [r["source_call_id"] for r in results] == [c["tool_call_id"] for c in calls]
    failed = results[-1]
    assert failed["extra"]["exit_code"] == 3 and failed["extra"]["status"] == "error"
    assert "hello from holon" in results[-2]["content"]


def test_a_refused_run_has_one_step_saying_why(tmp_path):
    task = make_task(tmp_path, replay=WRITE_AND_RUN)
    task.spec.write_text("version: v1\nkind: Holon\ngoal: [not, text]\n")
    result = run_agent(task)
    assert result.manifest is not None and result.manifest["metadata"]["reason"] == "invalid_spec"
    path = result.output_dir / "evidence" / "trajectory.json"
    assert_atif_valid(path)
    document = json.loads(path.read_text())
    assert document["extra"]["outcome"] == "failure"
    assert any("invalid_spec" in s["message"] for s in document["steps"])


def test_a_directory_the_engine_planted_at_the_name_is_replaced(tmp_path):
    steps = [{"run": "mkdir -p {output}/evidence/trajectory.json/inside"}, {"say": "done"}]
    result = run_agent(make_task(tmp_path, replay=steps))
    assert result.manifest is not None and result.manifest["outcome"] == "success"
    assert_atif_valid(result.output_dir / "evidence" / "trajectory.json")


def test_a_link_planted_at_the_events_file_is_not_followed(tmp_path):
    outside = tmp_path / "outside.ndjson"
    outside.write_text('{"type": "message", "text": "from outside the record"}\n')
    steps = [
        {"say": "inside"},
        {"run": f"ln -sf {outside} {{output}}/evidence/events.ndjson"},
        {"say": "done"},
    ]
    result = run_agent(make_task(tmp_path, replay=steps))
    assert result.manifest is not None
    path = result.output_dir / "evidence" / "trajectory.json"
    assert_atif_valid(path)
    assert "from outside the record" not in path.read_text()


def test_a_serve_turn_writes_a_valid_trajectory(tmp_path):
    from tests.runner.kit import holon_run, make_workspace, write_task

    workspace = make_workspace(tmp_path / "ws", "git")
    spec = write_task(tmp_path / "task", WRITE_AND_RUN)
    output = tmp_path / "out"
    ran = holon_run(
        tmp_path,
        [str(spec), "--serve", "--engine", "replay", "--workspace", str(workspace),
         "--output", str(output)],
    )  # fmt: skip
    assert ran.exit_code == 0, ran.stderr
    path = output / "evidence" / "trajectory.json"
    assert_atif_valid(path)
    document = json.loads(path.read_text())
    assert document["extra"]["outcome"] == "success"
    assert any(s.get("tool_calls") for s in document["steps"])
