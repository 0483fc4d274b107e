"""The parser on the bridge's captured output (``data/*.jsonl``: the real CLIs' ACP servers
and the scripted agent against the scripted model server), and fuzzed."""

from __future__ import annotations

from pathlib import Path

import pytest
from holon_adapter_acp.parser import AcpParser
from holon_adapter_acp.retries import OPENCODE
from hypothesis import given
from hypothesis import strategies as st

from holon_core import EngineReport
from holon_core.testing.fuzz import FUZZ, captured_objects, check_parser, engine_lines

DATA = Path(__file__).parent / "data"


def parse(name: str, stderr: tuple[str, ...] = ()) -> EngineReport:
    parser = AcpParser()
    for line in (DATA / f"{name}.jsonl").read_text(encoding="utf-8").splitlines():
        parser.feed(line)
    for line in stderr:
        parser.feed_stderr(line)
    return parser.finish(0)


@pytest.mark.parametrize("agent", ["gemini", "opencode", "claude", "codex"])
def test_a_real_write_and_run_is_a_clean_turn(agent: str) -> None:
    report = parse(f"acp-{agent}-write-and-run")
    assert report.terminal_seen and report.is_error is False
    assert report.tool_calls == 2 and report.tool_failures == 0
    assert report.final_text.endswith("Created hello.txt and checked its content.")


def test_codex_error_in_meta_then_end_turn_is_an_error() -> None:
    report = parse("acp-codex-server-500")
    assert report.is_error and report.reason == "engine_error"
    assert "reported an error and then ended its turn" in (report.error or "")


@pytest.mark.parametrize("agent", ["gemini", "opencode"])
def test_a_401_is_auth_failed(agent: str) -> None:
    report = parse(f"acp-{agent}-auth-401")
    assert report.is_error and report.reason == "auth_failed"


def test_opencode_retries_past_the_cap_abort() -> None:
    line = 'level=ERROR message="stream error" small=false agent=build error.error="500"'
    parser = AcpParser(retries=(OPENCODE, 2))
    for _ in range(2):
        parser.feed_stderr(line)
    assert parser.report.abort_reason is None
    parser.feed_stderr(line.replace("small=false", "small=true"))  # the title call: not counted
    assert parser.report.abort_reason is None
    parser.feed_stderr(line)
    assert parser.report.abort_reason == "engine_error"


def test_a_failed_exit_code_fails_a_completed_shell_call() -> None:
    parser = AcpParser()
    start = '{"acp":"update","update":{"sessionUpdate":"tool_call","toolCallId":"t",'
    start += '"kind":"execute","status":"in_progress","rawInput":{"command":"make test"}}}'
    end = '{"acp":"update","update":{"sessionUpdate":"tool_call_update","toolCallId":"t",'
    end += '"status":"completed","rawOutput":{"exit_code":2}}}'
    events = parser.feed(start) + parser.feed(end)
    assert [e.type for e in events] == ["tool_call", "tool_result"]
    assert events[1].status == "error" and events[1].data["exit_code"] == 2
    assert parser.report.tool_failures == 1


SAMPLES = captured_objects(DATA)
STDERR = st.lists(st.text(max_size=80) | st.just('message="stream error" small=false'), max_size=4)


@FUZZ
@given(lines=engine_lines(SAMPLES), stderr=STDERR, exit_code=st.sampled_from([0, 1, 143, None]))
def test_any_stream_gives_events_or_a_typed_error(lines, stderr, exit_code):
    check_parser(lambda: AcpParser("m", (OPENCODE, 1)), lines, stderr, exit_code)
