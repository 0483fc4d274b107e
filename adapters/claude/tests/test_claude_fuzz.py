"""Fuzz the Claude Code stream parser: captured streams broken at random (issue 12)."""

from __future__ import annotations

from pathlib import Path

from holon_adapter_claude.parser import ClaudeParser
from hypothesis import given
from hypothesis import strategies as st

from holon_core.testing.fuzz import FUZZ, captured_objects, check_parser, engine_lines

SAMPLES = captured_objects(Path(__file__).parent / "data")


@FUZZ
@given(lines=engine_lines(SAMPLES), exit_code=st.sampled_from([0, 1, 143, None]))
def test_any_stream_gives_events_or_a_typed_error(lines, exit_code):
    check_parser(ClaudeParser, lines, stderr=lines[:2], exit_code=exit_code)
