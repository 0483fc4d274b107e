"""Fuzz the Codex CLI stream parser: captured streams broken at random (issue 12)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from holon_adapter_codex.parser import CodexParser
from hypothesis import example, given
from hypothesis import strategies as st

from holon_core.testing.fuzz import FUZZ, captured_objects, check_parser, engine_lines

SAMPLES = captured_objects(Path(__file__).parent / "data")


@FUZZ
@example(lines=['{"type": "thread.started", "thread_id": "**"}'], exit_code=0, max_steps=None)
@example(lines=['{"type": "thread.started", "thread_id": []}'], exit_code=0, max_steps=None)
@given(
    lines=engine_lines(SAMPLES),
    exit_code=st.sampled_from([0, 1, None]),
    max_steps=st.sampled_from([None, 1, 3]),
)
def test_any_stream_gives_events_or_a_typed_error(lines, exit_code, max_steps):
    with tempfile.TemporaryDirectory() as home:
        (Path(home) / "sessions").mkdir()  # finish() looks for this run's rollout there
        check_parser(
            lambda: CodexParser(Path(home), "http://127.0.0.1:1/v1", max_steps),
            lines,
            stderr=lines[:2],
            exit_code=exit_code,
        )
