"""Fuzz the Codex CLI stream parser: captured streams broken at random (issue 12)."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from holon_adapter_codex.parser import CodexParser
from hypothesis import example, given
from hypothesis import strategies as st

from holon_core.testing.fuzz import FUZZ, captured_objects, check_parser, engine_lines, mutated

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


#: One record of each kind the rollout (session log) reader looks at.
ROLLOUT = [
    {"type": "turn_context", "payload": {"model": "m"}},
    {"type": "token_usage_record", "payload": {}},
    {
        "type": "event_msg",
        "payload": {
            "type": "thread_settings_applied",
            "thread_settings": {"model": "m", "model_provider_id": "p"},
        },
    },
    {
        "type": "event_msg",
        "payload": {"type": "token_count", "info": {"total_token_usage": {"input_tokens": 1}}},
    },
    {
        "type": "event_msg",
        "payload": {
            "type": "task_complete",
            "duration_ms": 1,
            "time_to_first_token_ms": 1,
            "last_agent_message": "done",
        },
    },
    {
        "type": "response_item",
        "payload": {
            "role": "developer",
            "content": [{"type": "input_text", "text": "<skills_instructions>\n- a: b"}],
        },
    },
]
ROLLOUT_LINES = st.lists(
    mutated(ROLLOUT).map(json.dumps) | st.just("[" * 5000 + "]" * 5000), max_size=8
)


@FUZZ
@example(records=['{"type": "response_item", "payload": {"role": "developer", "content": 1}}'])
@example(records=["[" * 5000 + "]" * 5000])
@given(records=ROLLOUT_LINES)
def test_any_rollout_the_engine_leaves_gives_a_report(records):
    """The session log codex writes in its (engine-writable) home is read at finish()."""
    with tempfile.TemporaryDirectory() as home:
        day = Path(home) / "sessions" / "2026" / "01" / "01"
        day.mkdir(parents=True)
        (day / "rollout-2026-01-01T00-00-00-t1.jsonl").write_text("\n".join(records))
        (day / "rollout-2025-12-31T00-00-00-t1.jsonl").mkdir()  # named like a log, not one
        os.mkfifo(day / "rollout-2025-12-30T00-00-00-t1.jsonl")  # reading it would block
        (day / "rollout-2025-12-29T00-00-00-t1.jsonl").symlink_to(day / "gone")  # dangling
        stream = [json.dumps({"type": "thread.started", "thread_id": "t1"})]
        check_parser(lambda: CodexParser(Path(home), "http://127.0.0.1:1/v1"), stream)
