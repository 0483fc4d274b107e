"""Tool results are judged by exit code, the same way as on every engine (issue 11, part 5).

The real pinned Gemini CLI against the scripted model. Its stream reports a shell command
that exits non-zero as ``status: success`` and shows the code only when the command printed
nothing; the adapter reads the codes from the CLI's session log after the run and amends
the events. Every command failing plus "Done, all good." is a failure; a failed exploratory
``grep`` followed by working steps is a success.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gemini_kit import run_gemini
from holon_conformance.provider import ScriptedProvider

from holon_core.testing import Task

Provider = Callable[[Any], ScriptedProvider]


def final_results(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The last ``tool_result`` per tool id (a later, amended one wins), in call order."""
    calls = [e["tool_id"] for e in events if e["type"] == "tool_call"]
    last = {e["tool_id"]: e for e in events if e["type"] == "tool_result"}
    return [last[tool_id] for tool_id in calls if tool_id in last]


def test_every_command_failing_is_a_failure_whatever_the_engine_claims(
    task: Task, provider: Provider
) -> None:
    result = run_gemini(task, provider("all-commands-fail"))
    manifest = result.manifest
    assert manifest is not None, result.stderr
    assert result.exit_code == 1, result.stderr
    assert manifest["outcome"] == "failure" and manifest["metadata"]["reason"] == "tool_failed"
    assert "`false` exited 1" in manifest["error"]
    results = final_results(result.events)
    assert [(e["status"], e["data"]["exit_code"]) for e in results] == [("error", 2), ("error", 1)]
    # `ls` printed an error, so only the session log had its exit code: an amended event.
    assert results[0]["data"]["amended"] is True
    tools = manifest["metadata"]["tools"]
    assert (tools["commands"], tools["commands_failed"], tools["last_failed"]) == (2, 2, True)
    assert [c["exit_code"] for c in tools["failed_commands"]] == [2, 1]


def test_a_failed_exploratory_grep_before_working_steps_is_a_success(
    task: Task, provider: Provider
) -> None:
    result = run_gemini(task, provider("explore-then-succeed"))
    manifest = result.manifest
    assert manifest is not None, result.stderr
    assert result.exit_code == 0, result.stderr
    assert manifest["outcome"] == "success" and manifest["metadata"]["reason"] == "ok"
    results = final_results(result.events)
    assert [e["status"] for e in results] == ["ok", "ok", "ok"]
    # grep without a match exits 1: an answer, not a failure; `cat hello.txt` exits 0.
    assert [results[0]["data"]["exit_code"], results[2]["data"]["exit_code"]] == [1, 0]
    assert manifest["metadata"]["tools"]["commands_failed"] == 0


REFUSED_SUBSTITUTION = {
    "turns": [
        {"say": "I will check who I am.", "run_shell": {"command": "echo $(whoami)"}},
        {"final": {"text": "Done, all good."}},
    ]
}


def test_a_command_the_cli_refused_to_run_is_a_failed_call_not_a_success(
    task: Task, provider: Provider
) -> None:
    server = provider(REFUSED_SUBSTITUTION)
    result = run_gemini(task, server)
    manifest = result.manifest
    assert manifest is not None, result.stderr
    assert result.exit_code == 1, result.stderr
    assert manifest["outcome"] == "failure" and manifest["metadata"]["reason"] == "tool_failed"
    assert (
        "`echo $(whoami)` failed: refused by Gemini CLI: command substitution"
        in (manifest["error"])
    )
    (refused,) = final_results(result.events)
    assert refused["status"] == "error" and "exit_code" not in refused["data"]
    assert refused["data"]["error"]["type"] == "command_substitution"
    (failed,) = manifest["metadata"]["tools"]["failed_commands"]
    assert failed["command"] == "echo $(whoami)" and "exit_code" not in failed
    assert "did not run" in failed["error"]
    # What the model was told: the CLI's refusal, not the command's output.
    contents = server.turn_requests("gemini")[-1].body["contents"]
    (answer,) = [
        p["functionResponse"] for c in contents for p in c["parts"] if "functionResponse" in p
    ]
    assert answer["response"]["output"].startswith("Command injection detected")
