"""Fuzz the OpenCode stream parser: captured streams and its log lines broken at random."""

from __future__ import annotations

from pathlib import Path

from holon_adapter_opencode.parser import OpenCodeParser
from hypothesis import given
from hypothesis import strategies as st

from holon_core.testing.fuzz import FUZZ, captured_objects, check_parser, engine_lines

DATA = Path(__file__).parent / "data"
SAMPLES = captured_objects(DATA)
LOG_LINES = (DATA / "stream_errors.log").read_text("utf-8").splitlines()
#: A log line: a captured one cut anywhere, or arbitrary text.
CUT_LOG_LINE = st.sampled_from(LOG_LINES).flatmap(
    lambda line: st.integers(0, len(line)).map(lambda cut: line[:cut])
)
STDERR = st.lists(CUT_LOG_LINE | st.sampled_from(LOG_LINES) | st.text(max_size=80), max_size=6)


@FUZZ
@given(lines=engine_lines(SAMPLES), stderr=STDERR, exit_code=st.sampled_from([0, 1, 143, None]))
def test_any_stream_gives_events_or_a_typed_error(lines, stderr, exit_code):
    check_parser(lambda: OpenCodeParser(max_steps=3, retries=1), lines, stderr, exit_code)
