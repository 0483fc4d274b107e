"""``holon-agent --engine claude`` end to end: the real pinned CLI against the scripted model.

Each test maps to an item of issue 4's "Done when" list.
"""

from __future__ import annotations

import json
import signal
import subprocess
import time
from typing import TYPE_CHECKING

import pytest

from holon_core.testing import Task, run_agent, snapshot_tree
from holon_core.testing.task import git

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = pytest.mark.engine("claude")


def applies_to_baseline(task: Task, tmp_path: Path) -> None:
    """``diff.patch`` applies with ``git apply`` to a fresh checkout of the baseline commit."""
    clone = tmp_path / "baseline"
    git(tmp_path, "clone", "-q", str(task.workspace), str(clone))
    git(clone, "apply", str(task.output / "diff.patch"))
    assert (clone / "hello.txt").read_text() == "hello from holon\n"


def test_write_and_run_succeeds(
    kit, claude_binary, scripted_provider, task, tmp_path, assert_valid_manifest
):
    server = scripted_provider("write-and-run")
    result = kit.run(task, server)
    manifest = assert_valid_manifest(result.manifest)
    assert (result.exit_code, manifest["outcome"]) == (0, "success"), result.stderr
    meta = manifest["metadata"]
    assert meta["engine"]["name"] == "claude"
    assert meta["engine"]["version"] == "2.1.197"
    assert meta["engine"]["model"] == "fake-model-1"
    assert meta["session_id"]
    assert meta["turns"] == 3
    assert meta["usage"]["output_tokens"] > 0 and meta["usage"]["total_tokens"] > 0
    assert meta["cost"]["source"] == "reported"
    applies_to_baseline(task, tmp_path)
    # The goal reached the model on stdin, holon's system text through the run-local file.
    first = server.turn_requests("claude")[0]
    assert "Create hello.txt" in first.text()
    system = "\n".join(block.get("text", "") for block in first.body["system"])
    assert "You are running headless inside holon" in system
    assert "You are running headless inside holon" not in json.dumps(first.body["messages"])
    kinds = [e["type"] for e in result.events]
    assert {"session", "tool_call", "tool_result", "result"} <= set(kinds)


def test_auth_failure_stops_before_the_engine_retries(kit, scripted_provider, task, claude_binary):
    server = scripted_provider("auth-401")
    # The engine's own default (10 retries over ~3 minutes): holon must not wait for it.
    result = kit.run(task, server, HOLON_CLAUDE_MAX_RETRIES="10")
    assert result.exit_code == 1
    assert result.manifest is not None
    assert result.manifest["metadata"]["reason"] == "auth_failed"
    assert "ANTHROPIC_API_KEY" in result.manifest["error"]
    assert len(server.turn_requests("claude")) <= 2
    assert result.manifest["metadata"]["process"]["ended_by"] == "aborted"


@pytest.mark.parametrize(("status", "reason"), [(403, "auth_failed"), (429, "rate_limited")])
def test_other_http_failures(kit, scripted_provider, task, claude_binary, tmp_path, status, reason):
    scenario = tmp_path / f"fail-{status}.yaml"
    scenario.write_text(
        f"turns:\n  - error: {{status: {status}, message: scripted}}\n    times: forever\n"
        "  - final: {text: unreachable}\n"
    )
    server = scripted_provider(str(scenario))
    result = kit.run(task, server)
    assert result.exit_code == 1 and result.manifest is not None
    assert result.manifest["metadata"]["reason"] == reason
    assert str(status) in result.manifest["error"]


def test_server_error_after_capped_retries(kit, scripted_provider, task, claude_binary):
    server = scripted_provider("server-500")
    result = kit.run(task, server)
    assert result.exit_code == 1 and result.manifest is not None
    assert result.manifest["metadata"]["reason"] == "engine_error"
    assert "HTTP 500 after 1 retries" in result.manifest["error"]
    assert len(server.turn_requests("claude")) == 2
    assert result.manifest["metadata"]["claude"]["api_error_status"] == 500


def test_flaky_server_recovers(kit, scripted_provider, task, claude_binary):
    server = scripted_provider("flaky-500")
    result = kit.run(task, server)
    assert result.exit_code == 0, result.stderr
    assert any(e["type"] == "retry" for e in result.events)


def test_stalled_model_hits_the_silence_timeout(kit, scripted_provider, task, claude_binary):
    server = scripted_provider("stall")
    result = kit.run(task, server, HOLON_SILENCE_TIMEOUT="3")
    assert result.exit_code == 1 and result.manifest is not None
    assert result.manifest["metadata"]["reason"] == "stalled"
    assert "HOLON_SILENCE_TIMEOUT" in result.manifest["error"]


def test_max_turns(kit, scripted_provider, tmp_path, claude_binary, task):
    spec = task.spec.read_text() + "constraints:\n  max_steps: 2\n"
    task.spec.write_text(spec)
    server = scripted_provider("max-turns")
    result = kit.run(task, server)
    assert result.exit_code == 1 and result.manifest is not None
    assert result.manifest["metadata"]["reason"] == "max_steps"
    assert "max_steps" in result.manifest["error"]
    assert result.manifest["metadata"]["claude"]["result_subtype"] == "error_max_turns"


@pytest.mark.parametrize(("max_steps", "reason"), [(2, "max_steps"), (3, "ok")])
def test_max_steps_means_model_turns(
    kit, scripted_provider, task, claude_binary, max_steps, reason
):
    # write-and-run needs three model turns (write, run, answer) and two tool calls: the
    # same budget must mean the same thing for every engine.
    task.spec.write_text(task.spec.read_text() + f"constraints:\n  max_steps: {max_steps}\n")
    server = scripted_provider("write-and-run")
    result = kit.run(task, server)
    assert result.manifest is not None, result.stderr
    assert result.manifest["metadata"]["reason"] == reason, result.manifest.get("error")


def test_sigterm_mid_run_leaves_nothing_behind(
    kit, scripted_provider, task, claude_binary, tmp_path
):
    server = scripted_provider("long-tool")
    proc = kit.start(task, kit.env(server))
    try:
        # Wait (bounded) until the scripted `sleep 60` tool runs inside the workspace.
        for _ in range(300):
            if kit.running(task.workspace, "sleep 60"):
                break
            time.sleep(0.1)
        else:
            pytest.fail("the engine never started the scripted tool")
        proc.send_signal(signal.SIGTERM)
        result = kit.finish(task, proc)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert result.exit_code == 1 and result.manifest is not None
    assert result.manifest["metadata"]["reason"] == "cancelled"
    assert result.manifest["error"]
    assert kit.processes_under(task.workspace) == []


def test_skill_is_staged_listed_used_and_recorded(kit, scripted_provider, task, claude_binary):
    skill = task.input / "skills" / "probe-skill"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: probe-skill\ndescription: Probe skill PROBE-DESC\n---\nPROBE-BODY steps\n"
    )
    task.spec.write_text(
        task.spec.read_text().replace(
            "metadata:\n  name: test\n", "metadata:\n  name: test\n  skills: [probe-skill]\n"
        )
    )
    server = scripted_provider("use-skill")
    result = kit.run(task, server)
    assert result.exit_code == 0, result.stderr
    meta = result.manifest["metadata"] if result.manifest else {}
    (record,) = meta["skills"]
    assert record["name"] == "probe-skill"
    assert record["staging"] == "native" and record["seen_by_engine"] is True
    assert meta["claude"]["skills_used"] == ["probe-skill"]
    turns = server.turn_requests("claude")
    assert "PROBE-DESC" in turns[0].text()
    assert any("PROBE-BODY" in r.text() for r in turns[1:])
    # Staged into the run-local home, never into the workspace.
    assert not (task.workspace / ".claude").exists()
    assert (task.output / "diff.patch").read_text() == ""


def test_user_claude_home_never_reaches_the_model(
    kit, scripted_provider, task, tmp_path, claude_binary
):
    home = kit.planted_home(tmp_path / "user-home", "PLANTED-7f3a")
    server = scripted_provider("final-only")
    # Control: the bare engine with this HOME does send the planted files to the model.
    subprocess.run(
        [str(claude_binary), "-p", "hi", "--output-format", "stream-json", "--verbose"],
        cwd=task.workspace,
        env=kit.bare_env(server, home),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=60,
        check=True,
    )
    control = json.dumps([r.body for r in server.turn_requests("claude")])
    assert "PLANTED-7f3a-instructions" in control and "PLANTED-7f3a-settings-model" in control
    assert "PLANTED-7f3a-skill" in control
    server.reset()
    before = snapshot_tree(home)  # the control run wrote its own state
    env = kit.env(server, HOME=str(home))
    del env["HOLON_MODEL"]  # so a leaked settings.json model would show in the request
    result = run_agent(task, "claude", env=env, timeout=60)
    assert result.exit_code == 0, result.stderr
    requests = server.turn_requests("claude")
    assert requests
    seen = json.dumps([r.body for r in requests])
    assert "PLANTED-7f3a" not in seen
    assert snapshot_tree(home) == before  # holon neither read nor wrote the user's home
