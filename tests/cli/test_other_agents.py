"""``holon run`` drives any RFC-0002 agent: a v0.1 entrypoint that takes its paths from the
environment only (``--agent CMD --agent-paths env``), manifests in the v0.1 and v0.2 shapes
judged by the contract's fields, and the agent's own reason when it fails before the engine."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.runner.kit import base_env, git, make_workspace, write, write_task

from .kit import run, script

V01_AGENT = f"{sys.executable} {Path(__file__).with_name('v01_agent.py')}"


def clean_repo(root: Path) -> Path:
    write(root, "README.md", "hello\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    return root


def holon_run(tmp: Path, *args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    done = run([script("holon"), "run", *args, "--json"], env={**base_env(tmp), **(env or {})})
    assert "Traceback" not in done.stderr, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    assert result["exit_code"] == done.returncode
    return result


def test_v01_agent_reading_paths_from_the_environment(tmp_path: Path) -> None:
    ws = clean_repo(tmp_path / "ws")
    spec = write_task(tmp_path / "task", [], artifacts=[{"path": "diff.patch", "required": True}])
    result = holon_run(
        tmp_path, str(spec), "--workspace", str(ws), "--agent", V01_AGENT,
        "--agent-paths", "env", "--apply",
    )  # fmt: skip
    assert (result["outcome"], result["exit_code"], result["valid"]) == ("success", 0, True)
    assert result["problems"] == [] and result["error"] is None
    assert result["applied"] is True
    assert (ws / "README.md").read_text() == "hello\nadded by a v0.1 agent\n"
    seen = json.loads((Path(result["paths"]["output_dir"]) / "seen-env.json").read_text())
    assert seen["HOLON_OUTPUT_DIR"] == result["paths"]["output_dir"]
    assert Path(seen["HOLON_INPUT_DIR"], "spec.yaml").is_file()
    assert "HOLON_AGENT_PATHS" not in seen and "HOLON_AGENT_CMD" not in seen


def test_v01_agent_given_flags_fails_and_says_so(tmp_path: Path) -> None:
    """Without --agent-paths env the runner passes flags, which a v0.1 entrypoint rejects."""
    ws = clean_repo(tmp_path / "ws")
    spec = write_task(tmp_path / "task", [])
    result = holon_run(tmp_path, str(spec), "--workspace", str(ws), "--agent", V01_AGENT)
    assert result["outcome"] == "failure" and result["reason"] == "missing_manifest"
    assert result["agent_exit_code"] == 64


@pytest.mark.parametrize("mode", ["numeric", "failure", "failure-silent"])
def test_v01_manifest_shapes_are_judged_by_the_contract(tmp_path: Path, mode: str) -> None:
    ws = clean_repo(tmp_path / "ws")
    spec = write_task(tmp_path / "task", [], artifacts=[{"path": "diff.patch", "required": True}])
    env = {"HOLON_AGENT_CMD": V01_AGENT, "HOLON_AGENT_PATHS": "env", "HOLON_V01_MODE": mode}
    result = holon_run(tmp_path, str(spec), "--workspace", str(ws), env=env)
    assert not any(p["code"] == "invalid_manifest" for p in result["problems"]), result
    if mode == "numeric":
        assert result["outcome"] == "success" and result["valid"] is True
        return
    # The agent's own failure stands; the patch it never wrote is a note, not the verdict.
    assert (result["outcome"], result["exit_code"]) == ("failure", 1)
    assert result["reason"] != "missing_artifacts"
    assert any("diff.patch" in w for w in result["warnings"])
    if mode == "failure":
        assert result["error"] == "Error: the model refused"
    else:
        assert any("no artifacts list" in w for w in result["warnings"])
        assert result["error"] == "the agent reported failure without an error"


@pytest.mark.parametrize(
    ("manifest", "complaint"),
    [
        ({"status": "completed", "outcome": "great", "duration": "1s", "artifacts": []},
         "outcome: must be one of success, failure, needs_human"),
        ({"status": "completed", "outcome": "success", "duration": "soon", "artifacts": []},
         "duration"),
        ({"status": "completed", "outcome": "success", "duration": "1s",
          "artifacts": ["../../etc/passwd"]}, "must be relative"),
        ({"outcome": "success", "duration": "1s", "artifacts": []}, "status: Field required"),
        ({"status": "completed", "outcome": "success", "duration": "1s", "artifacts": [],
          "metadata": {"agent": "holon-agent"}}, "holon_version"),
    ],
)  # fmt: skip
def test_contract_fields_are_still_enforced(
    tmp_path: Path, manifest: dict[str, Any], complaint: str
) -> None:
    ws = clean_repo(tmp_path / "ws")
    spec = write_task(tmp_path / "task", [])
    agent = tmp_path / "agent.py"
    target = "pathlib.Path(os.environ['HOLON_OUTPUT_DIR'], 'manifest.json')"
    agent.write_text(f"import os, pathlib\n{target}.write_text({json.dumps(manifest)!r})\n")
    env = {"HOLON_AGENT_CMD": f"{sys.executable} {agent}", "HOLON_AGENT_PATHS": "env"}
    result = holon_run(tmp_path, str(spec), "--workspace", str(ws), env=env)
    assert (result["outcome"], result["reason"]) == ("failure", "invalid_manifest")
    assert complaint in result["error"]


def test_agent_failing_before_the_engine_reports_its_own_reason(tmp_path: Path) -> None:
    """holon-agent refuses a broken skill before the engine runs: the caller sees why."""
    ws = make_workspace(tmp_path / "ws", "plain")
    spec = write_task(
        tmp_path / "task",
        [{"say": "never reached"}],
        artifacts=[
            {"path": "diff.patch", "required": True},
            {"path": "summary.md", "required": True},
        ],
    )
    # a workspace-layer skill: only the agent resolves that layer, so the agent refuses it
    write(ws / ".holon" / "skills" / "bad-skill", "SKILL.md", "no front matter here\n")
    result = holon_run(tmp_path, str(spec), "--workspace", str(ws), "--engine", "replay")
    assert (result["outcome"], result["reason"], result["exit_code"]) == (
        "failure", "invalid_skill", 1,
    )  # fmt: skip
    assert "SKILL.md" in result["error"]
    assert "missing_artifacts" not in {p["code"] for p in result["problems"]}
    human = run(
        [script("holon"), "run", str(spec), "--workspace", str(ws), "--engine", "replay",
         "--quiet"],
        env=base_env(tmp_path),
    )  # fmt: skip
    assert human.returncode == 1
    assert human.stdout.startswith("holon run: failure (invalid_skill)")


def test_a_bad_skill_flag_is_refused_before_any_agent_starts(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", "plain")
    spec = write_task(tmp_path / "task", [{"say": "never reached"}])
    skill = tmp_path / "bad-skill"
    write(skill, "SKILL.md", "no front matter here\n")
    human = run(
        [script("holon"), "run", str(spec), "--workspace", str(ws), "--engine", "replay",
         "--skill", str(skill), "--quiet"],
        env=base_env(tmp_path),
    )  # fmt: skip
    assert human.returncode == 1 and human.stdout == ""
    assert human.stderr.startswith("holon run: error: ") and "no YAML front matter" in human.stderr
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


def test_bad_agent_paths_setting_is_a_usage_problem(tmp_path: Path) -> None:
    spec = write_task(tmp_path / "task", [])
    done = run(
        [script("holon"), "run", str(spec), "--agent-paths", "stdin"], env=base_env(tmp_path)
    )
    assert done.returncode == 1 and "invalid choice: 'stdin'" in done.stderr
    done = run(
        [script("holon"), "run", str(spec), "--json"],
        env={**base_env(tmp_path), "HOLON_AGENT_PATHS": "stdin"},
    )
    assert done.returncode == 1 and "HOLON_AGENT_PATHS='stdin'" in done.stderr
    assert json.loads(done.stdout)["reason"] == "invalid_input"
    assert yaml.safe_load(spec.read_text())["kind"] == "Holon"


def test_error_only_when_the_outcome_is_failure(tmp_path: Path) -> None:
    """needs_human is not a failure: the manifest says why in metadata.detail, not error."""
    ws = make_workspace(tmp_path / "ws", "plain")
    spec = write_task(
        tmp_path / "task", [{"run": "echo $GITHUB_TOKEN > leaked.txt"}, {"say": "done"}]
    )
    env = {"GITHUB_TOKEN": "ghp_abcdefghijklmnopqrstuvwxyz012345"}
    env["HOLON_REPLAY_PASS_ENV"] = "GITHUB_TOKEN"
    result = holon_run(tmp_path, str(spec), "--workspace", str(ws), "--engine", "replay", env=env)
    assert (result["outcome"], result["reason"]) == ("needs_human", "secret_in_changes")
    assert result["error"] is None and "leaked.txt" in result["detail"]
    manifest = json.loads(Path(result["paths"]["manifest"]).read_text())
    assert "error" not in manifest
    assert "leaked.txt" in manifest["metadata"]["detail"]
