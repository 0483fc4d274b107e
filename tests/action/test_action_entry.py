"""``holon action run`` (what action.yml's step calls) in a simulated runner: a success, a
failure and a needs-human run of the replay engine through the real ``holon run``, each with
its step outputs and job summary; refused inputs and a missing runner say so; the summary of
a hostile record renders as text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from holon_core.testing.task import committed_repo
from tests.runner.kit import write_task

from .runner import Step, run_step, runner_env

OUTPUTS = {
    "outcome", "reason", "exit-code", "cost-usd", "tokens", "files-changed", "manifest",
    "patch", "report", "trajectory", "output-dir", "pull-request",
}  # fmt: skip


def repo(tmp: Path) -> Path:
    return committed_repo(tmp / "repo", {"README.md": "hi\n"})


def action(tmp: Path, steps: list[dict[str, Any]], **inputs: str) -> Step:
    workspace = repo(tmp)
    spec = write_task(tmp / "task", steps)
    env = runner_env(tmp, workspace) | {"INPUT_ENGINE": "replay", "INPUT_SPEC": str(spec)}
    env |= {f"INPUT_{k.upper()}": v for k, v in inputs.items()}
    return run_step(env, "run", cwd=workspace)


def test_a_success_sets_every_output_and_summarizes_the_run(tmp_path):
    steps: list[dict[str, Any]] = [
        {"write": {"path": "hello.txt", "content": "hello\n"}},
        {"run": "cat hello.txt"},
        {"say": "Wrote hello.txt <img src=x onerror=alert(1)> | and checked it"},
    ]
    step = action(tmp_path, steps)
    assert step.exit_code == 0, step.stderr
    out = step.outputs
    assert set(out) == OUTPUTS
    assert out["outcome"] == "success" and out["reason"] == "ok" and out["exit-code"] == "0"
    assert out["files-changed"] == "1"
    assert "hello.txt" in Path(out["patch"]).read_text()
    manifest = json.loads(Path(out["manifest"]).read_text())
    assert manifest["outcome"] == "success"
    assert Path(out["report"]).name == "report.html" and Path(out["report"]).is_file()
    assert Path(out["trajectory"]).is_file()
    assert Path(out["output-dir"]).parent.parent == tmp_path / "runner" / "temp"
    summary = step.summary
    assert summary.startswith("## ✅ holon: success (ok)")
    assert "| files changed | 1 |" in summary and "- `hello.txt`" in summary
    assert "| engine | replay" in summary
    assert "<img" not in summary and "&lt;img src=x onerror=alert(1)&gt;" in summary
    assert "::error" not in step.stdout


def test_a_failure_says_why_and_fails_the_step(tmp_path):
    step = action(tmp_path, [{"say": "cannot do it"}, {"outcome": "failure"}])
    assert step.exit_code == 1
    assert step.outputs["outcome"] == "failure" and step.outputs["exit-code"] == "1"
    reason = step.outputs["reason"]
    assert step.summary.startswith(f"## ❌ holon: failure ({reason})")
    assert "The engine itself reported an error and stopped." in step.summary
    assert f"::error title=holon%3A failure ({reason})::" in step.stdout
    assert step.outputs["patch"] and step.outputs["files-changed"] == "0"


def test_needs_human_is_exit_2_with_a_warning(tmp_path):
    step = action(tmp_path, [{"say": "unsure which way"}, {"outcome": "needs_human"}])
    assert step.exit_code == 2
    assert step.outputs["outcome"] == "needs_human" and step.outputs["exit-code"] == "2"
    assert step.summary.startswith("## ✋ holon: needs a person (needs_human)")
    assert "::warning title=holon%3A needs_human (needs_human)::" in step.stdout


def test_refused_inputs_still_set_the_outputs(tmp_path):
    step = action(tmp_path, [{"say": "x"}], GOAL="also a goal")
    assert step.exit_code == 1
    assert step.outputs["outcome"] == "failure"
    assert step.outputs["reason"] == "invalid_action_input"
    assert step.outputs["manifest"] == "" and step.outputs["exit-code"] == "1"
    assert "give exactly one task" in step.summary and "given: spec, goal" in step.summary
    assert "::error" in step.stdout


def test_publish_without_solve_is_refused(tmp_path):
    step = action(tmp_path, [{"say": "x"}], PUBLISH="true")
    assert step.exit_code == 1 and "publish needs solve" in step.summary


def test_outside_a_runner_it_names_the_missing_file(tmp_path):
    workspace = repo(tmp_path)
    env = runner_env(tmp_path, workspace)
    del env["GITHUB_OUTPUT"]
    env["INPUT_GOAL"] = "anything"
    step = run_step(env, "run", cwd=workspace)
    assert step.exit_code == 1
    assert "GITHUB_OUTPUT is not set" in step.stderr
    assert step.outputs == {} and step.summary == ""


def test_summary_of_a_dir_without_a_record(tmp_path):
    env = runner_env(tmp_path, repo(tmp_path))
    step = run_step(env, "summary", str(tmp_path / "nothing"), "--exit-code", "3")
    assert step.exit_code == 3
    assert step.outputs["reason"] == "no_manifest" and step.outputs["exit-code"] == "3"
    assert "holon left no readable manifest.json" in step.summary


def test_the_inputs_make_one_holon_command(tmp_path):
    from holon_core.action.inputs import holon_argv, read_inputs

    env = {
        "INPUT_SOLVE": "octo/app#7",
        "INPUT_ENGINE": "codex",
        "INPUT_MODEL": "gpt-5.5",
        "INPUT_MAX_COST": "$2.50",
        "INPUT_PUBLISH": "True",
        "GITHUB_WORKSPACE": "/w",
    }
    argv = holon_argv(read_inputs(env), tmp_path / "out")
    assert argv == [
        "solve", "octo/app#7", "--workspace", "/w", "--output", str(tmp_path / "out"),
        "--engine", "codex", "--model", "gpt-5.5", "--max-cost", "2.50", "--publish",
    ]  # fmt: skip
    goal = holon_argv(read_inputs({"INPUT_GOAL": "Fix the typo"}), tmp_path / "o")
    assert goal[:3] == ["run", "--goal", "Fix the typo"] and "--workspace" in goal


def test_a_published_pull_request_is_an_output_and_in_the_summary(tmp_path):
    from holon_core.action.entry import step_outputs
    from holon_core.action.result import read_result
    from holon_core.action.summary import job_summary

    output = tmp_path / "output"
    output.mkdir()
    manifest = {"outcome": "success", "metadata": {"reason": "ok", "files_changed": 2}}
    (output / "manifest.json").write_text(json.dumps(manifest))
    url = "https://github.com/octo/app/pull/8"
    actions = [
        {"action": "push", "status": "pushed"},
        {"action": "pull_request", "status": "created", "number": 8, "url": url},
    ]
    (output / "publish-result.json").write_text(json.dumps({"ok": True, "actions": actions}))
    result = read_result(output, 0)
    assert step_outputs(result)["pull-request"] == url
    assert f"| pull request | {url} |" in job_summary(result)
    (output / "publish-result.json").write_text('{"actions": [{"action": "pull_request"}]}')
    assert step_outputs(read_result(output, 0))["pull-request"] == ""


def test_a_manifest_nested_too_deep_is_no_readable_manifest(tmp_path):
    """JSON nested past the decoder's recursion limit (RecursionError, not ValueError) in a
    record the engine could write: the summary says no readable manifest, no traceback."""
    output = tmp_path / "out"
    output.mkdir()
    (output / "manifest.json").write_text("[" * 100_000 + "]" * 100_000)
    (output / "publish-result.json").write_text("{" * 100_000)
    step = run_step(runner_env(tmp_path, repo(tmp_path)), "summary", str(output))
    assert step.exit_code == 1, step.stderr
    assert "Traceback" not in step.stderr
    assert step.outputs["reason"] == "no_manifest"


def test_a_step_file_that_cannot_be_written_is_an_error_naming_it(tmp_path):
    """GITHUB_OUTPUT naming a directory (or a path under a missing one): an error naming the
    variable and the path, exit 1, not a traceback."""
    env = runner_env(tmp_path, repo(tmp_path))
    env["GITHUB_OUTPUT"] = str(tmp_path)
    step = run_step(env, "summary", str(tmp_path / "nothing"))
    assert step.exit_code == 1
    assert "Traceback" not in step.stderr
    assert f"GITHUB_OUTPUT ({tmp_path}) cannot be written" in step.stderr


def test_true_is_not_a_count(tmp_path):
    """JSON's true is a Python int: a manifest's ``total_tokens: true`` is no token count, and
    the step's tokens come from the input and output counts instead."""
    from holon_core.action.result import read_result

    usage = {"total_tokens": True, "input_tokens": 3, "output_tokens": 4}
    manifest = {"outcome": "success", "metadata": {"usage": usage, "files_changed": True}}
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    result = read_result(tmp_path, 0)
    assert result.tokens == 7 and result.files_changed is None
