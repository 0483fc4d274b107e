"""Fuzz the Gemini CLI stream parser: captured streams broken at random (issue 12)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from holon_adapter_gemini.parser import GeminiParser
from hypothesis import example, given
from hypothesis import strategies as st

from holon_core.testing.fuzz import FUZZ, captured_objects, check_parser, engine_lines

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
