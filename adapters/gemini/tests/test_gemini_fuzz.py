"""Fuzz the Gemini CLI stream parser: captured streams broken at random (issue 12)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from holon_adapter_gemini.parser import GeminiParser
from hypothesis import example, given
from hypothesis import strategies as st

from holon_core.testing.fuzz import FUZZ, captured_objects, check_parser, engine_lines, mutated

DATA = Path(__file__).parent / "data"
SAMPLES = captured_objects(DATA)


@FUZZ
@example(lines=['{"type": "init", "session_id": "**"}'], exit_code=0, max_steps=None)
@given(
    lines=engine_lines(SAMPLES),
    exit_code=st.sampled_from([0, 1, 41, 53, None]),
    max_steps=st.sampled_from([None, 1, 3]),
)
def test_any_stream_gives_events_or_a_typed_error(lines, exit_code, max_steps):
    with tempfile.TemporaryDirectory() as home:
        (Path(home) / ".gemini" / "tmp").mkdir(parents=True)  # finish() looks for its log
        check_parser(
            lambda: GeminiParser(model="m", max_steps=max_steps, home=Path(home)),
            lines,
            stderr=lines[:2],
            exit_code=exit_code,
        )


STREAM = (DATA / "all_commands_fail.jsonl").read_text(encoding="utf-8").splitlines()
SESSION = [
    json.loads(line)
    for line in (DATA / "all_commands_fail.session.jsonl").read_text("utf-8").splitlines()
]
SESSION_LINES = st.lists(
    mutated(SESSION).map(json.dumps) | st.just("[" * 5000 + "]" * 5000), max_size=8
)


@FUZZ
@example(records=["[" * 5000 + "]" * 5000])
@given(records=SESSION_LINES)
def test_any_session_log_the_engine_leaves_gives_a_report(records):
    """The chat log gemini writes in its (engine-writable) home is read at finish()."""
    with tempfile.TemporaryDirectory() as home:
        chats = Path(home) / ".gemini" / "tmp" / "project" / "chats"
        chats.mkdir(parents=True)
        (chats / "session-2026-11-22T20-50-be63a8b8.jsonl").write_text("\n".join(records))
        check_parser(lambda: GeminiParser(home=Path(home)), STREAM, exit_code=0)


def _cli_answer(output: str, code: int, signal: str | None, background: bool) -> str:
    """The CLI's answer to the model for a command that printed ``output`` (shell_end.py)."""
    shown = output.rstrip()  # the CLI keeps the output end-trimmed
    lines = [f"Output: {shown or '(empty)'}"]
    if code:
        lines.append(f"Exit Code: {code}")
    if signal:
        lines.append(f"Signal: {signal}")
    if background:
        lines.append("Background PIDs: 41, 42")
    lines.append("Process Group PGID: 40")
    text = "\n".join(lines).replace("</untrusted_context>", "&lt;/untrusted_context&gt;")
    return f"<untrusted_context>\n{text}\n</untrusted_context>"


#: Output made of the trailer's own words, so a printed trailer is tried often.
PRINTED = st.lists(
    st.sampled_from(
        [
            *("Exit Code: 0", "Exit Code: 3", "Signal: 9", "Process Group PGID: 1", "(empty)"),
            *("Command exited with code: 0", "Background PIDs: 7", "Error: no", "", " ", "x"),
            *("</untrusted_context>", "Output: y"),
        ]
    ),
    max_size=5,
).map("\n".join) | st.text(max_size=40)


@FUZZ
@given(
    output=PRINTED,
    code=st.sampled_from([0, 1, 3, 127]),
    signal=st.sampled_from([None, "SIGKILL"]),
    background=st.booleans(),
)
def test_what_a_command_prints_never_changes_its_recorded_end(output, code, signal, background):
    from holon_adapter_gemini.shell_end import shell_end

    shown = output.rstrip()
    if shown.strip():
        display = shown
    elif signal:
        display = f"Command terminated by signal: {signal}"
    else:
        display = f"Command exited with code: {code}" if code else ""
    end = shell_end(_cli_answer(output, code, signal, background), display)
    assert end is not None
    if signal:
        assert end.signal == signal and end.exit_code == (code or None)
    else:
        assert end.exit_code == code and end.signal is None
