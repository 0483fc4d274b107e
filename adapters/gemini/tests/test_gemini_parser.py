"""The parser against stdout captured from the real Gemini CLI 0.61.0 (``tests/data``).

Regenerate the data with ``tests/capture.py``. The end-to-end tests drive the live CLI through
``holon-agent``; these pin how each captured stream maps to the report the outcome rule reads.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from holon_adapter_gemini.errors import decode
from holon_adapter_gemini.parser import GeminiParser

if TYPE_CHECKING:
    from holon_core.engine.adapter import EngineReport
    from holon_core.engine.events import Event

DATA = Path(__file__).parent / "data"


def parse(name: str, *, drop_result: bool = False) -> tuple[EngineReport, list[Event]]:
    parser = GeminiParser(model="gemini-2.5-flash")
    events: list[Event] = []
    exit_code = None
    for line in (DATA / name).read_text(encoding="utf-8").splitlines():
        raw = json.loads(line)
        if "exit_code" in raw and "type" not in raw:
            exit_code = raw["exit_code"]
            continue
        if drop_result and raw.get("type") == "result":
            continue
        events.extend(parser.feed(line))
    return parser.finish(exit_code), events


def test_write_and_run_fills_the_report() -> None:
    report, events = parse("write_and_run.jsonl")
    assert report.terminal_seen and report.is_error is False
    assert report.reason is None and report.error is None
    assert report.session_id == "d362838d-391d-4e1b-bdc7-694df2013acc"
    assert report.model == "gemini-2.5-flash"
    assert report.turns == 3
    assert report.tool_calls == 2 and report.tool_failures == 0
    assert report.final_text == "Created hello.txt and checked its content."
    assert report.usage == {
        "input_tokens": 300,
        "output_tokens": 60,
        "cache_read_tokens": 0,
        "total_tokens": 360,
    }
    assert report.extra["models"] == ["gemini-2.5-flash"]
    assert report.cost_usd is None and report.cost_source == "unavailable"
    kinds = [e.type for e in events]
    assert kinds == [
        "session",
        "message",
        "tool_call",
        "tool_result",
        "tool_call",
        "tool_result",
        "message",
        "result",
    ]
    calls = [e for e in events if e.type == "tool_call"]
    assert [c.tool for c in calls] == ["write_file", "run_shell_command"]
    results = [e for e in events if e.type == "tool_result"]
    assert [r.tool for r in results] == ["write_file", "run_shell_command"]
    assert results[1].data["output"] == "hello from holon"


def test_final_text_is_only_the_text_after_the_last_tool_result() -> None:
    report, _ = parse("use_skill.jsonl")
    assert report.final_text == "Used probe-skill."


def test_skill_activation_is_recorded_as_seen() -> None:
    report, events = parse("use_skill.jsonl")
    assert report.skills_seen == {"probe-skill"}
    assert any(e.tool == "activate_skill" and e.status == "ok" for e in events)


def test_a_run_without_tools_has_one_turn_and_no_skills_seen() -> None:
    report, _ = parse("final_only.jsonl")
    assert report.turns == 1 and report.tool_calls == 0
    assert report.final_text == "Done: nothing to change."
    assert report.skills_seen == set()


def test_failed_tool_calls_are_counted_although_the_cli_says_success() -> None:
    report, events = parse("tool_fails.jsonl")
    assert report.terminal_seen and report.is_error is False
    assert report.tool_calls == 1 and report.tool_failures == 1
    failed = next(e for e in events if e.type == "tool_result")
    assert failed.status == "error"
    assert failed.data["error"]["type"] == "invalid_tool_params"


def test_401_is_auth_failed_with_a_sentence() -> None:
    report, _ = parse("auth_401.jsonl")
    assert report.terminal_seen and report.is_error is True
    assert report.reason == "auth_failed"
    assert report.error == (
        "The Gemini API rejected the API key (HTTP 401): invalid x-api-key (scripted)"
    )
    assert report.extra["http_status"] == 401 and report.extra["exit_code"] == 145
    assert report.turns is None


def test_500_is_engine_error() -> None:
    report, _ = parse("server_500.jsonl")
    assert report.is_error is True and report.reason == "engine_error"
    assert report.error is not None and "HTTP 500" in report.error
    assert "internal error (scripted)" in report.error


def test_429_is_decoded_from_the_exit_code_alone() -> None:
    # The 429 message carries no status; only exit code 173 (= 429 & 0xFF) tells.
    report, _ = parse("rate_429.jsonl")
    assert report.reason == "rate_limited"
    assert report.extra["http_status"] == 429
    assert report.error is not None and "quota (scripted)" in report.error


def test_no_result_event_leaves_terminal_unseen() -> None:
    report, _ = parse("write_and_run.jsonl", drop_result=True)
    assert report.terminal_seen is False and report.is_error is None


def test_stderr_explains_a_startup_crash() -> None:
    parser = GeminiParser()
    parser.feed_stderr("Invalid auth method selected.")
    parser.feed_stderr("    at async main (file:///x/gemini.js:1:1)")
    report = parser.finish(41)
    assert report.terminal_seen is False
    assert report.error == (
        "Gemini CLI has no usable authentication method: Invalid auth method selected."
    )


def test_unparsable_lines_become_flagged_messages() -> None:
    parser = GeminiParser()
    [event] = parser.feed("Loaded cached credentials.")
    assert event.type == "message" and event.data == {"unparsed": True}
    assert parser.report.final_text == ""


def test_max_turns_result_maps_to_max_steps() -> None:
    # Shape of handleMaxTurnsExceededError in the 0.61 bundle (exit code 53).
    parser = GeminiParser()
    line = json.dumps(
        {
            "type": "result",
            "status": "error",
            "error": {"type": "FatalTurnLimitedError", "message": "Reached max session turns"},
            "stats": {"total_tokens": 0, "input_tokens": 0, "output_tokens": 0, "models": {}},
        }
    )
    parser.feed(line)
    assert parser.finish(53).reason == "max_steps"


def test_exit_codes_decode_to_reasons() -> None:
    assert decode(145, None, "").reason == "auth_failed"
    assert decode(147, None, "").reason == "auth_failed"
    assert decode(173, None, "").reason == "rate_limited"
    assert decode(144, None, "").reason == "engine_error"
    assert decode(244, None, "").http_status == 500
    assert decode(55, None, "").reason == "engine_error"
    assert decode(1, None, "fetch failed").sentence == (
        "Gemini CLI failed with exit code 1: fetch failed"
    )
    # A dropped stream: the "[API Error: ...]" wrapper is peeled off.
    assert decode(1, "unknown", "[API Error: terminated]").sentence == (
        "Gemini CLI failed with exit code 1: terminated"
    )


def test_loop_detection_turns_a_reported_success_into_a_failure() -> None:
    report, events = parse("loop_detected.jsonl")
    assert report.terminal_seen and report.is_error is True
    assert report.reason == "engine_error"
    assert report.error is not None and "loop" in report.error
    assert [e.type for e in events if e.type == "error"] == ["error"]


def test_a_model_turn_beyond_max_steps_aborts_the_run() -> None:
    # write_and_run: three model turns (write, run, answer).
    parser = GeminiParser(model="m", max_steps=3)
    for line in (DATA / "write_and_run.jsonl").read_text(encoding="utf-8").splitlines():
        parser.feed(line)
    assert parser.report.abort_reason is None and parser.report.is_error is False
    parser = GeminiParser(model="m", max_steps=2)
    for line in (DATA / "write_and_run.jsonl").read_text(encoding="utf-8").splitlines():
        parser.feed(line)
    report = parser.finish(0)
    assert report.abort_reason == report.reason == "max_steps"
    assert report.is_error is True and report.turns == 3
    assert report.error is not None and "max_steps=2 model turns" in report.error
