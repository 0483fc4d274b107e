"""The generic ``acp`` engine through the real ``holon-agent``, driving the scripted ACP agent
(``scripted_agent.py``, the SDK's agent side): a working turn, the permission policy, the
credentials it hands on, and every broken agent ending in a clear failure, never a hang.
"""

from __future__ import annotations

import shlex
import signal

import pytest
from acp_kit import (
    agent_command,
    events_of,
    finish,
    run_scripted,
    scripted_env,
    start_engine,
    wait_for_process,
)

from holon_core.testing import make_task, processes_under, run_agent


def test_write_and_run_succeeds_with_patch_and_tool_record(task, valid_manifest):
    result = run_scripted(task, "write-and-run")
    manifest = valid_manifest(result)
    assert result.exit_code == 0, result.stderr
    assert manifest["outcome"] == "success"
    patch = (task.output / "diff.patch").read_text()
    assert "+++ b/hello.txt" in patch and "+hello from holon" in patch
    results = {e["tool_id"]: e for e in events_of(result, "tool_result")}
    assert results["run-1"]["status"] == "ok"
    assert results["run-1"]["data"]["exit_code"] == 0
    assert results["run-1"]["data"]["output"] == "hello from holon\n"
    assert [e["tool_id"] for e in events_of(result, "tool_call")] == ["write-1", "run-1"]
    acp = manifest["metadata"]["acp"]
    assert acp["agent"] == {"name": "scripted-agent", "version": "0.0.1"}
    assert acp["stop_reason"] == "end_turn"
    assert acp["plan"][0]["content"] == "write hello.txt"
    assert acp["acp_usage"] == {"used": 1234, "size": 200000}
    assert manifest["metadata"]["tools"]["commands"] == 1
    assert manifest["metadata"]["session_id"].startswith("scripted-")


def test_permission_request_is_allowed_by_default(task, valid_manifest):
    result = run_scripted(task, "ask-permission")
    manifest = valid_manifest(result)
    assert manifest["outcome"] == "success", manifest.get("error")
    assert (task.workspace / "hello.txt").read_text() == "allowed\n"
    assert manifest["metadata"]["acp"]["permissions"] == [
        {"tool_id": "write-1", "option": "yes", "kind": "allow_once"}
    ]


def test_permission_policy_reject_refuses_the_tool(task, valid_manifest):
    result = run_scripted(task, "ask-permission", HOLON_ACP_PERMISSION="reject")
    manifest = valid_manifest(result)
    assert not (task.workspace / "hello.txt").exists()
    assert manifest["metadata"]["acp"]["permissions"][0]["kind"] == "reject_once"
    assert manifest["metadata"]["reason"] == "tool_failed"


def test_a_bad_permission_policy_is_refused(task, valid_manifest):
    result = run_scripted(task, "write-and-run", HOLON_ACP_PERMISSION="maybe")
    manifest = valid_manifest(result)
    assert result.exit_code == 1
    assert manifest["metadata"]["reason"] == "invalid_input"
    assert "HOLON_ACP_PERMISSION" in manifest["error"]


def test_unknown_request_is_answered_at_once_and_the_failure_names_it(task, valid_manifest):
    result = run_scripted(task, "unknown-request", timeout=60)
    manifest = valid_manifest(result)
    assert result.exit_code == 1
    assert manifest["metadata"]["reason"] == "engine_error"
    assert "holon/test_unknown" in manifest["error"]
    assert "Method not found" in manifest["error"]
    assert manifest["metadata"]["acp"]["unanswerable_requests"] == ["holon/test_unknown"]


def test_agent_that_never_answers_ends_at_the_timeout_leaving_nothing(task, valid_manifest):
    result = run_scripted(task, "never-answer", HOLON_TIMEOUT="5", timeout=60)
    manifest = valid_manifest(result)
    assert result.exit_code == 1
    assert manifest["metadata"]["reason"] == "timeout"
    notes = [e.get("text") for e in events_of(result, "note")]
    assert "session/cancel sent to the agent" in notes
    assert processes_under(task.root) == []


def test_end_turn_after_a_failed_command_is_not_a_success(task, valid_manifest):
    result = run_scripted(task, "failed-tool-end-turn")
    manifest = valid_manifest(result)
    assert result.exit_code == 1
    assert manifest["metadata"]["reason"] == "tool_failed"
    assert "`exit 2` exited 2" in manifest["error"]


def test_end_turn_with_nothing_done_is_not_a_success(task, valid_manifest):
    result = run_scripted(task, "empty-end-turn")
    manifest = valid_manifest(result)
    assert result.exit_code == 1
    assert manifest["metadata"]["reason"] == "engine_error"
    assert "without a message or a tool call" in manifest["error"]


def test_end_turn_after_an_error_in_meta_is_not_a_success(task, valid_manifest):
    result = run_scripted(task, "meta-error-end-turn")
    manifest = valid_manifest(result)
    assert result.exit_code == 1
    assert manifest["metadata"]["reason"] == "engine_error"
    assert "reported an error and then ended its turn: stream failed" in manifest["error"]


def test_agent_crash_mid_prompt_is_engine_crashed(task, valid_manifest):
    result = run_scripted(task, "crash")
    manifest = valid_manifest(result)
    assert result.exit_code == 1
    assert manifest["metadata"]["reason"] == "engine_crashed"
    assert "exited (code 3)" in manifest["error"]


def test_sigterm_mid_tool_cancels_and_leaves_nothing_running(task, valid_manifest):
    proc = start_engine(task, "acp", scripted_env("sleep-tool"))
    try:
        assert wait_for_process(task.root, "sleep 300"), "the agent never started its tool"
        proc.send_signal(signal.SIGTERM)
        result = finish(task, proc)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    manifest = valid_manifest(result)
    assert result.exit_code == 1
    assert manifest["metadata"]["reason"] == "cancelled"
    assert processes_under(task.root) == []


def test_missing_command_is_refused_naming_both_sources(task, valid_manifest):
    result = run_agent(task, "acp", env={}, timeout=60)
    manifest = valid_manifest(result)
    assert result.exit_code == 1
    assert manifest["metadata"]["reason"] == "invalid_input"
    assert "HOLON_ACP_COMMAND" in manifest["error"] and "engine.command" in manifest["error"]


def test_missing_program_fails_the_preflight(task, valid_manifest):
    env = {"HOLON_ACP_COMMAND": "no-such-acp-agent-xyz --acp"}
    result = run_agent(task, "acp", env=env, timeout=60)
    manifest = valid_manifest(result)
    assert result.exit_code == 1
    assert manifest["metadata"]["reason"] == "engine_missing"
    assert "no-such-acp-agent-xyz" in result.stderr + manifest["error"]


@pytest.mark.parametrize("form", ["string", "list"])
def test_command_from_the_spec(tmp_path, valid_manifest, form):
    command = agent_command("write-and-run")
    value = command if form == "string" else shlex.split(command)
    made = make_task(tmp_path, goal="Create hello.txt", spec_extra={"engine": {"command": value}})
    result = run_agent(made, "acp", env={}, timeout=90)
    manifest = valid_manifest(result)
    assert manifest["outcome"] == "success", manifest.get("error")
    assert "+hello from holon" in (made.output / "diff.patch").read_text()


def test_pass_env_hands_on_named_credentials_only_and_redacts_them(task, valid_manifest):
    token = "agent-token-5f3a9c1e7b2d4a60"
    env = scripted_env(
        "show-env",
        HOLON_ACP_PASS_ENV="MY_AGENT_TOKEN",
        MY_AGENT_TOKEN=token,
        NOT_PASSED="visible-if-leaked-1234",
    )
    result = run_agent(task, "acp", env=env, timeout=90)
    manifest = valid_manifest(result)
    assert manifest["outcome"] == "success", manifest.get("error")
    outputs = {e["tool_id"]: e["data"]["output"] for e in events_of(result, "tool_result")}
    assert token not in outputs["run-1"] and outputs["run-1"].strip()
    assert outputs["run-2"] == "absent\n"
    evidence = "".join(p.read_text() for p in (task.output / "evidence").iterdir() if p.is_file())
    assert token not in evidence


def test_pass_env_names_are_the_credential_check(task, valid_manifest):
    env = scripted_env("write-and-run", HOLON_ACP_PASS_ENV="MY_AGENT_TOKEN")
    result = run_agent(task, "acp", env=env, timeout=60)
    manifest = valid_manifest(result)
    assert result.exit_code == 1
    assert manifest["metadata"]["reason"] == "missing_credentials"
