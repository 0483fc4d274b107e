"""`holon run --goal TEXT`: a one-line task without a spec file.

The runner writes a generated v1 spec to the run's ``input/spec.yaml`` (kept in the run dir),
the goal reaches the engine's prompt, ``--goal`` beside a SPEC replaces only the spec's goal,
and a command line with neither is a usage error naming both ways.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from holon_conformance.pytest_plugin import ProviderFactory

from .kit import holon_run, make_workspace, run_dirs, write_task

ROOT = Path(__file__).resolve().parents[2]
GOAL = "Fix the failing test: hello.txt must say hello"
#: The replay engine's steps: copy the prompt it was given, then change the workspace.
STEPS: list[dict[str, Any]] = [
    {"run": 'cp "$HOLON_REPLAY_PROMPT_FILE" {output}/prompt-seen.md'},
    {"write": {"path": "hello.txt", "content": "hello\n"}},
    {"say": "done"},
]


def _script(tmp: Path) -> dict[str, str]:
    path = tmp / "replay.yaml"
    path.write_text(yaml.safe_dump(STEPS), encoding="utf-8")
    return {"HOLON_REPLAY_SCRIPT": str(path)}


def _generated_spec(result: dict[str, Any]) -> dict[str, Any]:
    """The run's ``input/spec.yaml``, checked against the published spec schema."""
    spec_file = Path(result["paths"]["run_dir"]) / "input" / "spec.yaml"
    data: dict[str, Any] = yaml.safe_load(spec_file.read_text(encoding="utf-8"))
    schema = json.loads((ROOT / "schemas" / "spec.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(data, schema)
    return data


def test_goal_runs_without_a_spec_file(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", "git")
    argv = ["--goal", GOAL, "--workspace", str(ws), "--engine", "replay", "--timeout", "5m"]
    ran = holon_run(tmp_path, [*argv, "--json"], env=_script(tmp_path))
    assert ran.exit_code == 0, ran.stderr
    result = ran.json
    assert (result["outcome"], result["engine"]) == ("success", "replay")
    spec = _generated_spec(result)
    assert (spec["version"], spec["kind"]) == ("v1", "Holon")
    assert spec["goal"] == {"description": GOAL}
    assert spec["engine"] == {"name": "replay"}
    assert spec["constraints"] == {"timeout": "300s"}
    output = Path(result["paths"]["output_dir"])
    assert GOAL in (output / "prompt-seen.md").read_text(encoding="utf-8")
    assert "+hello" in (output / "diff.patch").read_text(encoding="utf-8")


def test_goal_file_reads_the_goal(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", "plain")
    goal_file = tmp_path / "goal.md"
    goal_file.write_text("Fix the bug.\n\nKeep the change small.\n", encoding="utf-8")
    argv = ["--goal-file", str(goal_file), "--workspace", str(ws), "--engine", "replay"]
    ran = holon_run(tmp_path, [*argv, "--json"], env=_script(tmp_path))
    assert ran.exit_code == 0, ran.stderr
    spec = _generated_spec(ran.json)
    assert spec["goal"] == {"description": "Fix the bug.\n\nKeep the change small."}
    assert "constraints" not in spec and "model" not in spec["engine"]  # no flag, no field


def test_goal_replaces_the_goal_of_a_spec(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", "git")
    artifacts = [{"path": "prompt-seen.md", "required": True}]
    extra = {"goal": {"description": "The spec's own goal", "issue_id": "42"}}
    spec_path = write_task(tmp_path / "task", STEPS, artifacts=artifacts, extra=extra)
    argv = [str(spec_path), "--goal", GOAL, "--workspace", str(ws), "--engine", "replay"]
    ran = holon_run(tmp_path, [*argv, "--json"])  # replay.yaml: the spec's context/ dir
    assert ran.exit_code == 0, ran.stderr
    spec = _generated_spec(ran.json)
    assert spec["goal"] == {"description": GOAL, "issue_id": "42"}  # only the text changes
    assert spec["output"] == {"artifacts": artifacts} and spec["metadata"] == {"name": "t"}
    run_dir = Path(ran.json["paths"]["run_dir"])
    assert (run_dir / "input" / "context" / "replay.yaml").is_file()
    prompt = (Path(ran.json["paths"]["output_dir"]) / "prompt-seen.md").read_text()
    assert GOAL in prompt and "The spec's own goal" not in prompt


@pytest.mark.parametrize(
    ("args", "says"),
    [
        ([], ["usage: holon run", "required: SPEC or --goal TEXT", "holon run --goal '"]),
        (["--goal", "a", "--goal-file", "f"], ["--goal and --goal-file"]),
        (["--goal", "  "], ["--goal is empty"]),
        (["--goal-file", "/nonexistent/goal.md"], ["/nonexistent/goal.md"]),
        (["/nonexistent/spec.yaml"], ["/nonexistent/spec.yaml does not exist", "--goal TEXT"]),
    ],
)
def test_goal_usage_errors(tmp_path: Path, args: list[str], says: list[str]) -> None:
    ws = make_workspace(tmp_path / "ws", "plain")
    ran = holon_run(tmp_path, [*args, "--workspace", str(ws), "--engine", "replay"])
    assert ran.exit_code == 1
    for text in says:
        assert text in ran.stderr, ran.stderr
    assert "Traceback" not in ran.stderr
    assert run_dirs(tmp_path) == []  # refused before any run dir exists


@pytest.mark.engine("claude")
def test_goal_through_claude_code(
    tmp_path: Path, engine_binary: Callable[[str], Path], scripted_provider: ProviderFactory
) -> None:
    """The real Claude Code against the scripted model: the goal is what the model is asked."""
    engine_binary("claude")  # fails, never skips, when the engine is missing
    server = scripted_provider("write-and-run")
    env = {**server.engine_env("claude"), "HOLON_MODEL": "fake-model-1"}
    env["HOLON_CLAUDE_MAX_RETRIES"] = "1"
    ws = make_workspace(tmp_path / "ws", "git")
    goal = "Create hello.txt saying hello from holon (GOAL-MARK-7)"
    argv = ["--goal", goal, "--workspace", str(ws), "--engine", "claude", "--json"]
    ran = holon_run(tmp_path, argv, env=env, timeout=180)
    assert ran.exit_code == 0, (ran.stderr[-3000:], ran.stdout[-3000:])
    assert (ran.json["outcome"], ran.json["engine"]) == ("success", "claude")
    assert _generated_spec(ran.json)["goal"] == {"description": goal}
    requests = [r.text() for r in server.turn_requests("claude")]
    assert "GOAL-MARK-7" in requests[0]
    patch = Path(ran.json["paths"]["patch"]).read_text(encoding="utf-8")
    assert "+hello from holon" in patch
