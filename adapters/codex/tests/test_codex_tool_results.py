"""Tool results are judged by exit code, the same way as on every engine (issue 11, part 5).

The real pinned Codex CLI against the scripted model: a run whose every command fails and
that still answers "Done, all good." must not be a success; a failed exploratory ``grep``
(Codex marks it ``status: failed``) followed by working steps must not be a failure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from codex_kit import ManifestCheck, Provider, run_codex
from holon_adapter_codex.parser import CodexParser
from holon_conformance.direct import run_direct
from holon_conformance.provider import ScriptedProvider, parse_scenario

from holon_core.record.outcome import tools_failed
from holon_core.testing import Task

if TYPE_CHECKING:
    from pathlib import Path


def final_results(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The last ``tool_result`` per tool id (a later, amended one wins), in call order."""
    calls = [e["tool_id"] for e in events if e["type"] == "tool_call"]
    last = {e["tool_id"]: e for e in events if e["type"] == "tool_result"}
    return [last[tool_id] for tool_id in calls if tool_id in last]


def test_every_command_failing_is_a_failure_whatever_the_engine_claims(
    task: Task, provider: Provider, valid_manifest: ManifestCheck
) -> None:
    result = run_codex(task, provider("all-commands-fail"))
    manifest = valid_manifest(result)
    assert result.exit_code == 1, result.stderr
    assert manifest["outcome"] == "failure" and manifest["metadata"]["reason"] == "tool_failed"
    assert "false` exited 1" in manifest["error"]
    results = final_results(result.events)
    assert [(e["status"], e["data"]["exit_code"]) for e in results] == [("error", 2), ("error", 1)]
    tools = manifest["metadata"]["tools"]
    assert (tools["commands"], tools["commands_failed"], tools["last_failed"]) == (2, 2, True)
    assert [c["exit_code"] for c in tools["failed_commands"]] == [2, 1]


def test_a_failed_exploratory_grep_before_working_steps_is_a_success(
    task: Task, provider: Provider, valid_manifest: ManifestCheck
) -> None:
    result = run_codex(task, provider("explore-then-succeed"))
    manifest = valid_manifest(result)
    assert result.exit_code == 0, result.stderr
    assert manifest["outcome"] == "success" and manifest["metadata"]["reason"] == "ok"
    results = final_results(result.events)
    assert [e["status"] for e in results] == ["ok", "ok", "ok"]
    # grep without a match exits 1: an answer, not a failure; `cat hello.txt` exits 0.
    assert [results[0]["data"]["exit_code"], results[2]["data"]["exit_code"]] == [1, 0]
    assert manifest["metadata"]["tools"]["commands_failed"] == 0


def test_a_command_an_execpolicy_rule_forbids_is_a_failed_call(
    tmp_path: Path, codex_binary: Path
) -> None:
    """Codex prints no item for it, only a stderr line; holon's home has no rules, so this
    drives the bare CLI with a ``forbidden`` rule in its home and feeds the parser its output.
    """
    scenario = {"turns": [{"run_shell": {"command": "whoami"}}, {"final": {"text": "Done."}}]}
    workspace, home = tmp_path / "ws", tmp_path / "home"
    rules = home / ".codex" / "rules"
    for path in (workspace, rules):
        path.mkdir(parents=True)
    rule = 'prefix_rule(pattern=["whoami"], decision="forbidden")\n'
    (rules / "deny.rules").write_text(rule, encoding="utf-8")
    with ScriptedProvider(parse_scenario(scenario, "forbidden")) as server:
        done = run_direct(
            "codex", codex_binary, server, workspace=workspace, home=home, prompt="Who am I?"
        )
    parser = CodexParser(home / ".codex", "http://127.0.0.1")
    for line in done.stdout.splitlines():
        parser.feed(line)
    events = [e for line in done.stderr.splitlines() for e in parser.feed_stderr(line)]
    report = parser.finish(done.returncode)
    (outcome,) = report.tool_log
    assert (outcome.ok, outcome.exit_code, outcome.command) == (False, None, "/bin/bash -lc whoami")
    assert outcome.error == "refused by Codex: policy forbids commands starting with `whoami`"
    assert [e.status for e in events if e.type == "tool_result"] == ["error"]
    assert "all 1 tool calls of the engine failed" in (tools_failed(report) or "")
