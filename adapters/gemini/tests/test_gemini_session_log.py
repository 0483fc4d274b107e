"""Exit codes Gemini CLI hides from its stream, read back from its session log.

Data captured from the real CLI 0.61.0 with ``tests/capture.py`` (scenario
``all-commands-fail``: ``ls`` of a missing path exits 2 with output, ``false`` exits 1
without): the stream says ``status: success`` for both.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from holon_adapter_gemini.parser import GeminiParser
from holon_adapter_gemini.session_log import exit_code_of, find_session_log, shell_exit_codes

DATA = Path(__file__).parent / "data"


def home_with_log(tmp_path: Path) -> tuple[Path, str]:
    """A run-local home holding the captured session log where the CLI writes it."""
    lines = (DATA / "all_commands_fail.session.jsonl").read_text("utf-8").splitlines()
    session_id = json.loads(lines[0])["sessionId"]
    chats = tmp_path / "home" / ".gemini" / "tmp" / "ws" / "chats"
    chats.mkdir(parents=True)
    target = chats / f"session-2026-11-22T20-41-{session_id[:8]}.jsonl"
    shutil.copyfile(DATA / "all_commands_fail.session.jsonl", target)
    return tmp_path / "home", session_id


def run_parser(home: Path | None) -> GeminiParser:
    parser = GeminiParser(model="gemini-2.5-flash", home=home)
    exit_code = None
    for line in (DATA / "all_commands_fail.jsonl").read_text("utf-8").splitlines():
        raw = json.loads(line)
        if "exit_code" in raw and "type" not in raw:
            exit_code = raw["exit_code"]
            continue
        parser.feed(line)
    parser.finish(exit_code)
    return parser


def test_the_stream_alone_shows_only_the_silent_commands_code() -> None:
    report = run_parser(None).report
    assert [t.exit_code for t in report.tool_log] == [None, 1]
    assert report.tool_failures == 1 and report.late_events == []


def test_finish_amends_results_from_the_session_log(tmp_path: Path) -> None:
    home, _ = home_with_log(tmp_path)
    report = run_parser(home).report
    assert [(t.ok, t.exit_code) for t in report.tool_log] == [(False, 2), (False, 1)]
    assert report.tool_failures == report.tool_calls == 2
    (late,) = report.late_events
    assert late.type == "tool_result" and late.status == "error"
    assert late.tool_id == report.tool_log[0].tool_id
    assert late.data == {"exit_code": 2, "amended": True, "source": "session_log"}


def test_shell_exit_codes_by_call_id(tmp_path: Path) -> None:
    home, session_id = home_with_log(tmp_path)
    path = find_session_log(home, session_id)
    assert path is not None
    assert sorted(shell_exit_codes(path).values(), key=str) == [1, 2]
    assert find_session_log(home, "00000000-other") is None


def test_a_planted_link_or_special_file_is_not_read(tmp_path: Path) -> None:
    home, session_id = home_with_log(tmp_path)
    path = find_session_log(home, session_id)
    assert path is not None
    real = tmp_path / "elsewhere.jsonl"
    path.replace(real)
    path.symlink_to(real)
    assert shell_exit_codes(path) == {}
    path.unlink()
    os.mkfifo(path)  # opening is non-blocking, and a FIFO is not a regular file
    assert shell_exit_codes(path) == {}


def test_exit_code_of_response_text() -> None:
    wrap = "<untrusted_context>\n{}\n</untrusted_context>"
    assert exit_code_of(wrap.format("Output: hi\nProcess Group PGID: 7")) == 0
    assert exit_code_of(wrap.format("Output: x\nExit Code: 3\nProcess Group PGID: 7")) == 3
    # Only the CLI's trailing lines count, not text the command printed.
    printed = "Output: Exit Code: 9\nExit Code: 0 is fine\nProcess Group PGID: 7"
    assert exit_code_of(printed) == 0
    assert exit_code_of("Output: (empty)\nSignal: 9\nProcess Group PGID: 7") is None
    assert exit_code_of("Command was cancelled by user before it could complete.") is None
