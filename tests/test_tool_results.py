"""Outcome rule 9 and the shared exit-code rule every adapter's parser applies."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from holon_core.engine.adapter import EngineReport
from holon_core.engine.events import ToolOutcome, command_ok
from holon_core.record.outcome import Signals, decide


@pytest.mark.parametrize(
    ("command", "code", "ok"),
    [
        ("grep -r needle .", 1, True),  # no match: an answer
        ("/bin/bash -lc 'grep -r needle .'", 1, True),  # Codex wraps commands
        ('grep "a|b" file', 1, True),  # the | is quoted, not a pipe
        ("cd src && rg TODO", 1, True),
        ("(cd src; diff a b)", 1, True),
        ("git -C repo diff --exit-code", 1, True),
        ("FOO=1 test -f x", 1, True),
        ("grep x f | wc -l", 1, False),  # the pipeline's status is wc's
        ("grep x f\nmake", 1, False),  # the last line decides
        ("! grep -q TODO src", 1, False),  # inverted: exit 1 means TODO was found
        ("grep x f", 2, False),  # grep's own error
        ("false", 1, False),
        ("ls missing", 2, False),
        ("pytest", 1, False),
        ("grep 'unbalanced", 1, False),
    ],
)
def test_command_ok(command: str, code: int, ok: bool) -> None:
    assert command_ok(command, code) is ok


@given(st.text(max_size=80))
def test_exit_zero_is_always_ok_and_a_code_above_one_never(command: str) -> None:
    assert command_ok(command, 0)
    assert not command_ok(command, 2) and not command_ok(command, 127)


def shell(tool_id: str, command: str, code: int) -> ToolOutcome:
    return ToolOutcome(tool_id, "shell", command_ok(command, code), command, code)


def edit(tool_id: str, ok: bool = True) -> ToolOutcome:
    return ToolOutcome(tool_id, "write_file", ok)


def judge(*outcomes: ToolOutcome) -> tuple[str, str, str | None]:
    report = EngineReport(terminal_seen=True, is_error=False, final_text="Done, all good.")
    for outcome in outcomes:
        report.tool_calls += 1
        report.record_tool_result(outcome)
    decision = decide(Signals(report=report, exit_code=0, ended_by="exited"))
    return decision.outcome, decision.reason, decision.error


def test_every_command_failing_is_a_failure() -> None:
    outcome, reason, error = judge(shell("1", "ls missing", 2), shell("2", "false", 1))
    assert (outcome, reason) == ("failure", "tool_failed")
    assert error is not None and "`false` exited 1" in error


def test_a_command_the_engine_refused_fails_with_its_reason_not_an_exit_code() -> None:
    refused = ToolOutcome("1", "shell", False, "echo $(whoami)", None, error="refused: x")
    outcome, reason, error = judge(refused)
    assert (outcome, reason) == ("failure", "tool_failed")
    assert error is not None and "`echo $(whoami)` failed: refused: x" in error
    report = EngineReport()
    report.record_tool_result(refused)
    failed = [{"command": "echo $(whoami)", "exit_code": None, "error": "refused: x"}]
    assert report.tool_summary()["failed_commands"] == failed


def test_edits_then_only_failing_test_runs_is_a_failure() -> None:
    outcome, reason, error = judge(edit("1"), shell("2", "pytest", 1), shell("3", "pytest", 1))
    assert (outcome, reason) == ("failure", "tool_failed")
    assert error is not None and "none of the 2 shell commands" in error


def test_a_failed_probe_followed_by_work_is_a_success() -> None:
    assert judge(shell("1", "cat notes.txt", 1), edit("2"))[:2] == ("success", "ok")
    assert judge(shell("1", "ls missing", 2), edit("2"), shell("3", "cat a", 0))[0] == "success"


def test_a_failed_last_command_after_working_ones_is_a_success() -> None:
    assert judge(shell("1", "make", 0), edit("2"), shell("3", "false", 1))[0] == "success"


def test_grep_without_a_match_alone_is_a_success() -> None:
    assert judge(shell("1", "grep -r legacy_api .", 1))[:2] == ("success", "ok")


def test_a_run_without_tools_is_judged_by_the_rest() -> None:
    assert judge()[:2] == ("success", "ok")


def test_amending_a_result_moves_the_failure_count() -> None:
    report = EngineReport()
    report.record_tool_result(ToolOutcome("a", "shell", True, "ls x"))
    assert report.amend_tool_result("a", ok=False, exit_code=2)
    assert report.tool_failures == 1 and report.tool_log[0].exit_code == 2
    assert not report.amend_tool_result("a", ok=False, exit_code=2)
    assert not report.amend_tool_result("missing", ok=True, exit_code=0)
    assert report.tool_summary()["failed_commands"] == [{"command": "ls x", "exit_code": 2}]


def test_the_replay_engine_applies_the_same_rule_through_holon_agent(tmp_path) -> None:
    from holon_core.testing import make_task, run_agent

    failing = make_task(
        tmp_path / "failing",
        replay=[{"run": "ls /nonexistent-dir"}, {"run": "false"}, {"say": "Done, all good."}],
    )
    result = run_agent(failing)
    assert result.exit_code == 1, result.stderr
    assert result.manifest is not None
    assert result.manifest["metadata"]["reason"] == "tool_failed"
    assert result.manifest["metadata"]["tools"]["commands_failed"] == 2

    exploring = make_task(
        tmp_path / "exploring",
        replay=[
            {"run": "grep -r no-such-needle ."},  # exit 1: no match, an answer
            {"write": {"path": "notes.txt", "content": "found nothing\n"}},
            {"say": "Wrote notes."},
        ],
    )
    result = run_agent(exploring)
    assert result.exit_code == 0, result.stderr
    assert result.manifest is not None
    assert result.manifest["metadata"]["reason"] == "ok"
    assert result.manifest["metadata"]["tools"]["commands_failed"] == 0
    events = (exploring.output / "evidence" / "events.ndjson").read_text()
    assert '"exit_code":1' in events.replace(" ", "")
