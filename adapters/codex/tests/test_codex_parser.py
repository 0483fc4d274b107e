"""The parser on streams captured from the real ``codex exec --json`` (see capture.py)."""

from __future__ import annotations

from pathlib import Path

from holon_adapter_codex.classify import reason_for
from holon_adapter_codex.parser import CodexParser

from holon_core.engine.adapter import EngineReport
from holon_core.engine.events import Event

DATA = Path(__file__).with_name("data")


def parse(
    name: str, tmp_path: Path, max_steps: int | None = None
) -> tuple[CodexParser, list[Event]]:
    parser = CodexParser(tmp_path / "codex-home", "http://127.0.0.1:1/v1", max_steps)
    events: list[Event] = []
    for line in (DATA / f"{name}.jsonl").read_text().splitlines():
        events += parser.feed(line)
    return parser, events


def finished(parser: CodexParser, exit_code: int) -> EngineReport:
    return parser.finish(exit_code)


def test_write_and_run(tmp_path: Path) -> None:
    parser, events = parse("write-and-run", tmp_path)
    report = finished(parser, 0)
    assert report.terminal_seen and report.is_error is False
    assert report.session_id
    assert report.tool_calls == 2 and report.tool_failures == 0
    assert report.final_text == "Created hello.txt and checked its content."
    assert report.usage["input_tokens"] > 0 and report.usage["output_tokens"] > 0
    assert (
        report.usage["total_tokens"] == report.usage["input_tokens"] + report.usage["output_tokens"]
    )
    assert [e.tool for e in events if e.type == "tool_call"] == ["apply_patch", "shell"]
    assert [e.status for e in events if e.type == "tool_result"] == ["ok", "ok"]
    assert report.abort_reason is None


def test_auth_401_aborts_at_the_first_retry_notice(tmp_path: Path) -> None:
    parser, events = parse("auth-401", tmp_path)
    report = parser.report
    assert report.abort_reason == "auth_failed"
    assert report.reason == "auth_failed"
    assert report.error is not None and "401" in report.error
    assert "OPENAI_API_KEY" in report.error
    assert any(e.type == "retry" for e in events)


def test_server_500_is_a_terminal_engine_error(tmp_path: Path) -> None:
    parser, events = parse("server-500", tmp_path)
    report = finished(parser, 1)
    assert report.terminal_seen and report.is_error is True
    assert report.reason == "engine_error"
    assert report.abort_reason is None
    assert events[-1].type == "result" and events[-1].status == "error"


def test_unreachable_endpoint_aborts_after_two_network_waits(tmp_path: Path) -> None:
    parser, _ = parse("unreachable", tmp_path)
    report = parser.report
    assert not report.terminal_seen
    assert report.abort_reason == "engine_error"
    assert report.error is not None and "http://127.0.0.1:1/v1" in report.error


def test_use_skill_reads_skill_md_with_the_shell(tmp_path: Path) -> None:
    parser, events = parse("use-skill", tmp_path)
    report = finished(parser, 0)
    assert report.terminal_seen and not report.is_error
    [call] = [e for e in events if e.type == "tool_call"]
    assert "probe-skill/SKILL.md" in call.data["command"]


def test_max_steps_aborts_when_the_budget_is_spent(tmp_path: Path) -> None:
    parser, _ = parse("write-and-run", tmp_path, max_steps=1)
    assert parser.report.abort_reason == "max_steps"
    assert parser.report.tool_calls == 2


def test_stdin_notice_is_not_noise_and_startup_errors_are_kept(tmp_path: Path) -> None:
    parser = CodexParser(tmp_path, "u")
    assert parser.feed_stderr("Reading additional input from stdin...") == []
    parser.feed_stderr("Error: CODEX_HOME points to /x, but that path does not exist")
    assert parser.report.error is not None and "CODEX_HOME" in parser.report.error


def test_reason_codes() -> None:
    assert reason_for("unexpected status 401 Unauthorized: bad key") == "auth_failed"
    assert reason_for("unexpected status 403 Forbidden") == "auth_failed"
    assert reason_for("exceeded retry limit, last status: 429 Too Many Requests") == "rate_limited"
    assert reason_for("We're currently experiencing high demand") == "engine_error"


def test_max_steps_counts_model_turns(tmp_path: Path) -> None:
    # write-and-run: turn 1 writes, turn 2 runs a command, turn 3 answers.
    parser, _ = parse("write-and-run", tmp_path / "three", max_steps=3)
    assert parser.report.abort_reason is None and parser.report.is_error is False
    parser, _ = parse("write-and-run", tmp_path / "two", max_steps=2)
    report = parser.report
    assert report.abort_reason == report.reason == "max_steps"
    assert report.tool_calls == 2  # the third turn was a message, not a tool call
    assert report.is_error is True  # even though turn.completed followed


def test_a_forbidden_command_seen_only_on_stderr_is_a_failed_call(tmp_path: Path) -> None:
    # Codex 0.169.0's line for a command a `decision="forbidden"` execpolicy rule refused.
    line = (
        "2026-11-23T00:02:15.483314Z ERROR codex_core::tools::router: error=exec_command "
        'failed: CreateProcess { message: "Rejected(\\"`/bin/bash -lc whoami` rejected: '
        'policy forbids commands starting with `whoami`\\")" }'
    )
    parser = CodexParser(tmp_path, "http://127.0.0.1")
    kinds = [e.type for e in parser.feed_stderr(line)]
    assert kinds == ["stderr", "tool_result"]
    (outcome,) = parser.report.tool_log
    assert (outcome.ok, outcome.exit_code, outcome.command) == (False, None, "/bin/bash -lc whoami")
    assert outcome.error == "refused by Codex: policy forbids commands starting with `whoami`"
    assert parser.report.tool_calls == 1 and parser.report.tool_failures == 1
    assert [e.type for e in parser.feed_stderr("ERROR something else failed")] == ["stderr"]
    assert parser.report.tool_calls == 1
