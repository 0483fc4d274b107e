"""The parser against stdout captured from the real Claude Code 2.1.197 (tests/data/*.jsonl).

The end-to-end tests drive the live CLI; these pin the mapping of each captured stream to
the report the outcome rule reads.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from holon_adapter_claude.parser import ClaudeParser

if TYPE_CHECKING:
    from holon_core.engine.adapter import EngineReport
    from holon_core.engine.events import Event

DATA = Path(__file__).parent / "data"


def parse(name: str, *, cut_at_result: bool = False) -> tuple[EngineReport, list[Event]]:
    parser = ClaudeParser()
    events: list[Event] = []
    for line in (DATA / name).read_text(encoding="utf-8").splitlines():
        if cut_at_result and '"type":"result"' in line.replace(" ", ""):
            break
        events.extend(parser.feed(line))
    return parser.finish(0), events


def test_write_and_run_fills_the_report() -> None:
    report, events = parse("write_and_run.jsonl")
    assert report.terminal_seen and report.is_error is False
    assert report.reason is None and report.error is None
    assert report.session_id == "5c97cb00-b1b0-4092-878a-bfe20bd71098"
    assert report.model == "fake-model-1"
    assert report.engine_version == "2.1.197"
    assert report.turns == 3
    assert report.final_text == "All done."
    assert report.usage == {
        "input_tokens": 30,
        "output_tokens": 21,
        "cache_read_tokens": 9,
        "cache_write_tokens": 6,
        "total_tokens": 66,
    }
    assert report.cost_source == "reported" and report.cost_usd == 0.000717
    assert (report.tool_calls, report.tool_failures) == (2, 0)
    kinds = [e.type for e in events]
    assert kinds[0] == "session" and kinds[-1] == "result"
    calls = [e for e in events if e.type == "tool_call"]
    assert [c.tool for c in calls] == ["Write", "Bash"]
    results = [e for e in events if e.type == "tool_result"]
    assert [(r.tool, r.status) for r in results] == [("Write", "ok"), ("Bash", "ok")]


def test_auth_retry_aborts_at_once() -> None:
    parser = ClaudeParser()
    lines = (DATA / "auth_401.jsonl").read_text(encoding="utf-8").splitlines()
    parser.feed(lines[0])
    before = parser.report.abort_reason
    assert before is None
    events = parser.feed(lines[1])
    assert events[0].type == "retry" and events[0].data["error_status"] == 401
    assert parser.report.abort_reason == "auth_failed"
    assert parser.report.reason == "auth_failed"
    assert "ANTHROPIC_API_KEY" in (parser.report.error or "")


def test_auth_result_without_retries_is_auth_failed() -> None:
    parser = ClaudeParser()
    for line in (DATA / "auth_401.jsonl").read_text(encoding="utf-8").splitlines():
        if '"api_retry"' not in line:
            parser.feed(line)
    report = parser.finish(1)
    assert report.is_error is True and report.reason == "auth_failed"
    assert report.abort_reason is None


def test_server_error_is_an_error_despite_subtype_success() -> None:
    report, events = parse("server_500.jsonl")
    assert report.extra["result_subtype"] == "success"
    assert report.is_error is True
    assert report.reason == "engine_error"
    assert report.error is not None and "HTTP 500 after 1 retries" in report.error
    assert any(e.type == "error" for e in events)
    assert report.model == "fake-model-1"  # the synthetic message does not overwrite it


def test_rate_limited() -> None:
    report, _ = parse("rate_429.jsonl")
    assert report.is_error is True and report.reason == "rate_limited"
    assert report.abort_reason is None


def test_max_turns() -> None:
    report, _ = parse("max_turns.jsonl")
    assert report.is_error is True and report.reason == "max_steps"
    assert report.error is not None and "Reached maximum number of turns (1)" in report.error
    assert report.tool_failures == 1


def test_skill_listed_and_used() -> None:
    report, _ = parse("use_skill.jsonl")
    assert report.skills_seen is not None and "probe-skill" in report.skills_seen
    assert report.extra["skills_used"] == ["probe-skill"]


def test_no_result_is_not_terminal() -> None:
    report, _ = parse("server_500.jsonl", cut_at_result=True)
    assert report.terminal_seen is False
    assert report.error is not None and report.error.startswith("Claude Code ended without")


def test_garbage_lines_do_not_break_the_stream() -> None:
    parser = ClaudeParser()
    assert parser.feed("") == []
    assert parser.feed("[1, 2]") == []
    (event,) = parser.feed("not json at all")
    assert event.type == "message" and event.data == {"unparsed": True}


def test_calls_a_deny_rule_refused_fail_without_an_exit_code() -> None:
    # Captured from Claude Code 2.1.197 with `"deny": ["Bash(whoami:*)"]` in the workspace's
    # .claude/settings.json: `whoami` and `echo hi && whoami` refused, `echo ok` ran.
    report, events = parse("refused.jsonl")
    verdicts = [(t.command, t.ok, t.exit_code) for t in report.tool_log]
    assert verdicts == [
        ("whoami", False, None),
        ("echo hi && whoami", False, None),
        ("echo ok", True, 0),
    ]
    assert report.tool_log[1].error == (
        "refused by Claude Code: Permission to use Bash with command echo hi && whoami has "
        "been denied."
    )
    assert report.tool_log[2].error is None
    results = [e for e in events if e.type == "tool_result"]
    assert [e.data.get("error", {}).get("type") for e in results] == ["refused", "refused", None]
    assert report.tool_summary()["commands_failed"] == 2
