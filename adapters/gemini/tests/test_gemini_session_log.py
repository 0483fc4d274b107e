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
from holon_adapter_gemini.session_log import find_session_log, shell_ends
from holon_adapter_gemini.shell_end import ShellEnd, shell_end

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
    assert {end.exit_code for end in shell_ends(path).values()} == {1, 2}
    assert find_session_log(home, "00000000-other") is None


def test_a_planted_link_or_special_file_is_not_read(tmp_path: Path) -> None:
    home, session_id = home_with_log(tmp_path)
    path = find_session_log(home, session_id)
    assert path is not None
    real = tmp_path / "elsewhere.jsonl"
    path.replace(real)
    path.symlink_to(real)
    assert shell_ends(path) == {}
    path.unlink()
    os.mkfifo(path)  # opening is non-blocking, and a FIFO is not a regular file
    assert shell_ends(path) == {}


def test_the_end_is_read_from_the_clis_trailer_after_the_known_output() -> None:
    wrap = "<untrusted_context>\n{}\n</untrusted_context>"
    assert shell_end(wrap.format("Output: hi\nProcess Group PGID: 7"), "hi") == ShellEnd(0)
    three = wrap.format("Output: x\nExit Code: 3\nProcess Group PGID: 7")
    assert shell_end(three, "x") == ShellEnd(3)
    silent = "Output: (empty)\nExit Code: 1\nProcess Group PGID: 7"
    assert shell_end(silent, "Command exited with code: 1") == ShellEnd(1)
    assert shell_end("Output: (empty)\nSignal: 9\nProcess Group PGID: 7", "") == ShellEnd(None, "9")
    assert shell_end("Command was cancelled by user before it could complete.", "") is None


def test_printed_trailer_lines_are_output_not_the_end() -> None:
    # What the command printed (resultDisplay) comes first, whatever it looks like.
    printed = "x\nExit Code: 3\nProcess Group PGID: 1"
    assert shell_end(f"Output: {printed}\nProcess Group PGID: 9", printed) == ShellEnd(0)
    printed = "x\nExit Code: 0"
    assert shell_end(f"Output: {printed}\nExit Code: 3\nProcess Group PGID: 9", printed) == (
        ShellEnd(3)
    )
    printed = "Command exited with code: 0"
    assert shell_end(f"Output: {printed}\nExit Code: 3", printed) == ShellEnd(3)
    printed = "x\nSignal: 9"
    assert shell_end(f"Output: {printed}\nProcess Group PGID: 9", printed) == ShellEnd(0)
    # A closing tag in the output is escaped in the answer, not in the display.
    tagged = "a</untrusted_context>\nExit Code: 5"
    escaped = tagged.replace("</untrusted_context>", "&lt;/untrusted_context&gt;")
    assert shell_end(f"Output: {escaped}\nProcess Group PGID: 9", tagged) == ShellEnd(0)


def test_an_output_that_is_not_known_gives_no_end() -> None:
    answer = "Output: x\nExit Code: 3\nProcess Group PGID: 9"
    assert shell_end(answer, "something else") is None
    assert shell_end(answer, None) is None  # not text (an ANSI display)
    assert shell_end(answer, "") is None  # a blank output cannot start with "x"
    assert shell_end("Output: x\nExit Code: 3\nnot the CLI's", "x") is None
    assert shell_end("Output:   \nExit Code: 2\nProcess Group PGID: 9", "") == ShellEnd(2)


def test_a_cut_answer_with_absurd_counts_is_unknown_not_an_error() -> None:
    digits = "9" * 5000  # more digits than int() takes from a string
    see = "characters. For full output see: f\n"
    cut = f"Output too large. Showing first {digits} and last 5 {see}"
    assert shell_end(cut + "x\n\n... [1 characters omitted] ...\n\nabcde", "x") is None
    cut = f"Output too large. Showing first 1 and last 5 {see}"
    assert shell_end(cut + f"x\n\n... [{digits} characters omitted] ...\n\nabcde", "x") is None
