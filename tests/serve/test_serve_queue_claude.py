"""Queued turns with the real Claude Code against the scripted model server: a second request
of the session, sent while the first runs, waits for it and then continues it."""

from __future__ import annotations

import json

import pytest
from holon_conformance.provider import ScriptedProvider, parse_scenario

from .conftest import start, stop_quietly
from .test_serve_queue import Streamed

pytestmark = pytest.mark.engine("claude")

ANSWER = "Done: nothing to change."


def test_two_concurrent_requests_of_one_claude_session_run_in_order(
    engine_binary, tmp_path, check_open_responses
):
    engine_binary("claude")  # fails, never skips, when the engine is missing
    scenario = parse_scenario({"turns": [{"final": {"text": ANSWER}}]}, "queue")
    with ScriptedProvider(scenario) as provider:
        env = {**provider.engine_env("claude"), "HOLON_TIMEOUT": "120"}
        serve = start(tmp_path, "--engine", "claude", env=env)
        try:
            (serve.workspace / "README.md").write_text("hello\n")
            first = Streamed(
                serve, {"input": "Answer briefly. MARK-FIRST", "holon": {"turn_id": "a1"}}
            )
            first_id = first.first("response.created")["response"]["id"]
            body = {
                "input": "Answer briefly. MARK-SECOND",
                "previous_response_id": first_id,
                "holon": {"turn_id": "a2"},
            }
            second = Streamed(serve, body)  # sent while turn a1's engine runs
            assert second.first("response.created")["response"]["status"] == "queued"
            events1, events2 = first.finish(), second.finish()
            requests = [r.body for r in provider.turn_requests("claude")]
        finally:
            stop_quietly(serve)
    assert events1[-1]["response"]["status"] == "completed", events1[-1]
    assert events2[-1]["response"]["status"] == "completed", events2[-1]
    check_open_responses(events2)
    one, two = (json.loads((serve.turn_dir(t) / "turn.json").read_text()) for t in ("a1", "a2"))
    assert two["session_id"] == one["session_id"]
    assert two["started_at"] >= one["ended_at"]
    assert two["continuation"] == {"mode": "native", "engine_session_id": one["engine_session_id"]}
    last = json.dumps(requests[-1]["messages"])  # what the model saw in turn a2
    assert last.index("MARK-FIRST") < last.index(ANSWER) < last.index("MARK-SECOND")
