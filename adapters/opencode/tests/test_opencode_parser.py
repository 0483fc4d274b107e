"""The parser on captured OpenCode output (no engine run): the cheap checks of its rules."""

from __future__ import annotations

from pathlib import Path

from holon_adapter_opencode.logs import max_retries
from holon_adapter_opencode.parser import OpenCodeParser

DATA = Path(__file__).parent / "data"


def feed(parser: OpenCodeParser, name: str) -> None:
    for line in (DATA / name).read_text("utf-8").splitlines():
        parser.feed(line)


def test_a_captured_run_gives_usage_session_and_the_terminal_step():
    parser = OpenCodeParser()
    feed(parser, "write_and_run.jsonl")
    report = parser.finish(0)
    assert report.terminal_seen and not report.is_error
    assert report.session_id and report.session_id.startswith("ses_")
    assert report.turns == 3 and report.tool_calls == 2 and report.tool_failures == 0
    assert report.usage["output_tokens"] == 60
    assert report.final_text == "Created hello.txt and checked its content."


def abort_reason(parser: OpenCodeParser) -> str | None:
    return parser.report.abort_reason


def test_retries_past_the_cap_abort_and_an_answer_resets_the_count():
    lines = (DATA / "stream_errors.log").read_text("utf-8").splitlines()
    title_error = lines[0]
    build_error = lines[1]
    parser = OpenCodeParser(retries=1)
    parser.feed_stderr(title_error)  # the title side call's failure is not counted
    parser.feed_stderr(build_error)
    assert abort_reason(parser) is None
    feed(parser, "write_and_run.jsonl")  # answered steps: the count starts over
    events = parser.feed_stderr(build_error)
    assert abort_reason(parser) is None and events[0].type == "retry"
    parser.feed_stderr(build_error)
    assert abort_reason(parser) == "engine_error"
    assert "HOLON_OPENCODE_MAX_RETRIES" in (parser.report.error or "")
    rate = build_error.replace("internal error", "Rate limit reached")
    limited = OpenCodeParser(retries=1)
    limited.feed_stderr(rate)
    limited.feed_stderr(rate)
    assert limited.report.abort_reason == "rate_limited"


def test_the_retry_cap_is_clamped():
    assert [max_retries({"HOLON_OPENCODE_MAX_RETRIES": v}) for v in ("0", "2", "99", "x")] == [
        1,
        2,
        5,
        3,
    ]
