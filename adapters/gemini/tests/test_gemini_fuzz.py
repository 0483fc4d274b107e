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


def _units(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def _js_slice(text: str, start: int, end: int | None = None) -> str:
    """``text.slice(start, end)`` as JavaScript counts: in UTF-16 units."""
    data = text.encode("utf-16-le", "surrogatepass")
    part = data[2 * start :] if end is None else data[2 * start : 2 * end]
    return part.decode("utf-16-le", "surrogatepass")


def _cut(answer: str, limit: int) -> str:
    """The CLI's ``formatTruncatedToolOutput`` (0.61.0) of an answer over ``limit``."""
    head = limit // 5
    tail = limit - head
    omitted = _units(answer) - head - tail
    return (
        f"Output too large. Showing first {head:,} and last {tail:,} characters. "
        f"For full output see: /home/.gemini/tmp/p/tool-outputs/x.txt\n"
        f"{_js_slice(answer, 0, head)}\n\n... [{omitted:,} characters omitted] ...\n\n"
        f"{_js_slice(answer, _units(answer) - tail)}"
    )


@FUZZ
@given(
    output=PRINTED | st.text(min_size=30, max_size=300),
    code=st.sampled_from([0, 1, 3, 127]),
    signal=st.sampled_from([None, "SIGKILL"]),
    background=st.booleans(),
    limit=st.sampled_from([None, 40, 120, 400]),
)
def test_what_a_command_prints_never_changes_its_recorded_end(
    output, code, signal, background, limit
):
    from holon_adapter_gemini.shell_end import shell_end

    shown = output.rstrip()
    if shown.strip():
        display = shown
    elif signal:
        display = f"Command terminated by signal: {signal}"
    else:
        display = f"Command exited with code: {code}" if code else ""
    answer = _cli_answer(output, code, signal, background)
    cut = limit is not None and _units(answer) > limit
    end = shell_end(_cut(answer, limit) if cut else answer, display)
    if cut:
        assert limit is not None
        escaped = shown.replace("</untrusted_context>", "&lt;/untrusted_context&gt;")
        trailer = _units(answer) - _units(f"<untrusted_context>\nOutput: {escaped}")
        if end is None:  # unknown only when the kept end does not reach back to the output
            assert not shown.strip() or trailer > limit - limit // 5
            return
    assert end is not None
    if signal:
        assert end.signal == signal and end.exit_code == (code or None)
    else:
        assert end.exit_code == code and end.signal is None
