"""Tool results are judged by exit code, the same way as on every engine (issue 11, part 5).

The real pinned Claude Code against the scripted model: a run whose every command fails and
that still answers "Done, all good." must not be a success; a failed exploratory ``grep``
followed by working steps must not be a failure.
"""

from __future__ import annotations

from typing import Any

import pytest
from holon_conformance.provider import parse_scenario

from holon_core.testing import make_task

pytestmark = pytest.mark.engine("claude")


def final_results(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The last ``tool_result`` per tool id (a later, amended one wins), in call order."""
    calls = [e["tool_id"] for e in events if e["type"] == "tool_call"]
    last = {e["tool_id"]: e for e in events if e["type"] == "tool_result"}
    return [last[tool_id] for tool_id in calls if tool_id in last]


def test_every_command_failing_is_a_failure_whatever_the_engine_claims(
    kit, scripted_provider, task, assert_valid_manifest
):
    result = kit.run(task, scripted_provider("all-commands-fail"))
    manifest = assert_valid_manifest(result.manifest)
    assert result.exit_code == 1, result.stderr
    assert manifest["outcome"] == "failure" and manifest["metadata"]["reason"] == "tool_failed"
    assert "`false` exited 1" in manifest["error"]
    results = final_results(result.events)
    assert [(e["status"], e["data"]["exit_code"]) for e in results] == [("error", 2), ("error", 1)]
    tools = manifest["metadata"]["tools"]
    assert (tools["commands"], tools["commands_failed"], tools["last_failed"]) == (2, 2, True)
    assert [c["exit_code"] for c in tools["failed_commands"]] == [2, 1]


def test_a_failed_exploratory_grep_before_working_steps_is_a_success(
    kit, scripted_provider, task, assert_valid_manifest
):
    result = kit.run(task, scripted_provider("explore-then-succeed"))
    manifest = assert_valid_manifest(result.manifest)
    assert result.exit_code == 0, result.stderr
    assert manifest["outcome"] == "success" and manifest["metadata"]["reason"] == "ok"
    results = final_results(result.events)
    assert [e["status"] for e in results] == ["ok", "ok", "ok"]
    # grep without a match exits 1: an answer, not a failure; `cat hello.txt` exits 0.
    assert [results[0]["data"]["exit_code"], results[2]["data"]["exit_code"]] == [1, 0]
    assert manifest["metadata"]["tools"]["commands_failed"] == 0


def test_a_command_a_deny_rule_refused_is_a_failed_call_not_a_success(
    kit, scripted_provider, tmp_path, assert_valid_manifest
):
    # The workspace's own settings deny `whoami`; the bypass mode does not lift deny rules.
    deny = '{"permissions": {"deny": ["Bash(whoami:*)"]}}\n'
    task = make_task(tmp_path / "task", goal="Who am I?", files={".claude/settings.json": deny})
    scenario = {"turns": [{"run_shell": {"command": "whoami"}}, {"final": {"text": "Done."}}]}
    server = scripted_provider(parse_scenario(scenario, "refused"))
    result = kit.run(task, server)
    manifest = assert_valid_manifest(result.manifest)
    assert result.exit_code == 1, result.stderr
    assert manifest["outcome"] == "failure" and manifest["metadata"]["reason"] == "tool_failed"
    refusal = "refused by Claude Code: Permission to use Bash with command whoami has been denied."
    assert f"`whoami` failed: {refusal}" in manifest["error"]
    (refused,) = final_results(result.events)
    assert refused["status"] == "error" and "exit_code" not in refused["data"]
    assert refused["data"]["error"] == {"type": "refused", "message": refusal}
    (failed,) = manifest["metadata"]["tools"]["failed_commands"]
    assert failed == {"command": "whoami", "error": refusal}
