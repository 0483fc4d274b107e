"""The ATIF builder on events the engines produce at their edges: amended and unmatched
results, streamed deltas, errors and notes, odd data; every document passes Harbor's
validator, and the validator itself rejects what ATIF forbids (so it can fail)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from holon_core.trajectory.atif import build_trajectory

from .harbor import assert_atif_valid, harbor_verdict

MANIFEST: dict[str, Any] = {
    "outcome": "failure",
    "error": "the engine stopped",
    "metadata": {
        "reason": "engine_crashed",
        "engine": {"name": "gemini", "version": "1.0", "model": "gemini-2.5-flash"},
        "usage": {"input_tokens": 10, "output_tokens": 5, "cache_read_tokens": 2},
        "cost": {"usd": None, "source": "unavailable"},
    },
}

EDGE_EVENTS: list[dict[str, Any]] = [
    {"seq": 1, "ts": 0.1, "type": "phase", "text": "launch"},
    {"seq": 2, "ts": 0.2, "type": "message", "text": "I will ", "data": {"delta": True}},
    {"seq": 3, "ts": 0.2, "type": "message", "text": "look.", "data": {"delta": True}},
    {
        "seq": 4,
        "ts": 0.3,
        "type": "tool_call",
        "tool": "run_shell_command",
        "tool_id": "a",
        "data": {"input": {"command": "ls"}},
    },
    {"seq": 5, "ts": 0.3, "type": "tool_call", "tool": "shell", "data": {"command": "pwd"}},
    {
        "seq": 6,
        "ts": 0.4,
        "type": "tool_result",
        "tool_id": "a",
        "status": "ok",
        "data": {"output": "<script>alert(1)</script>\n"},
    },
    {
        "seq": 7,
        "ts": 0.5,
        "type": "tool_result",
        "tool_id": "zzz",
        "status": "error",
        "data": "not a dict",
    },
    {"seq": 8, "ts": 0.6, "type": "error", "text": "quota exceeded"},
    {
        "seq": 9,
        "ts": 0.7,
        "type": "tool_call",
        "tool": "edit",
        "tool_id": "b",
        "data": {"input": "a plain string"},
    },
    {
        "seq": 10,
        "ts": 0.8,
        "type": "tool_result",
        "tool_id": "b",
        "status": "error",
        "data": {"error": {"type": "refused", "message": "not allowed"}},
    },
    {"seq": 11, "ts": 0.9, "type": "note", "data": {"events_dropped": 3}},
    {
        "seq": 12,
        "ts": 2.0,
        "type": "tool_result",
        "tool_id": "a",
        "status": "error",
        "data": {"exit_code": 2, "amended": True},
    },
    {"seq": 13, "ts": 2.1, "type": "result", "status": "error"},
]


def validated(tmp_path: Path, document: dict[str, Any]) -> dict[str, Any]:
    path = tmp_path / "trajectory.json"
    path.write_text(json.dumps(document))
    assert_atif_valid(path)
    return document


def test_edge_events_make_a_valid_trajectory(tmp_path):
    document = validated(
        tmp_path,
        build_trajectory(
            events=EDGE_EVENTS,
            calls=[{"kind": "model", "status": 200, "usage": {"input_tokens": 1}}],
            manifest=MANIFEST,
            prompt=("system text", "the task"),
            started_at=1_790_000_000.0,
        ),
    )
    steps = document["steps"]
    sources = ["system", "user", "agent", "system", "agent", "system", "system"]
    assert [s["source"] for s in steps] == sources
    first = steps[2]
    assert first["message"] == "I will look."
    assert [c["arguments"] for c in first["tool_calls"]] == [{"command": "ls"}, {"command": "pwd"}]
    listed, orphan = first["observation"]["results"]
    assert listed["content"] == "<script>alert(1)</script>\n"
    assert listed["extra"] == {"exit_code": 2, "status": "error"}  # the amended truth
    assert "source_call_id" not in orphan and orphan["extra"]["tool_id"] == "zzz"
    assert steps[3]["message"] == "engine error: quota exceeded"
    refused = steps[4]
    assert refused["tool_calls"][0]["arguments"] == {"input": "a plain string"}
    assert refused["observation"]["results"][0]["content"] == "not allowed"
    assert steps[5]["message"] == "holon: events_dropped=3"
    assert steps[6]["message"] == (
        "holon: ended failure (engine_crashed): the engine stopped"
    )  # a run that did not succeed ends saying why
    # Two agent steps, one model call: no step is given a call it may not have made.
    assert all("metrics" not in s for s in steps)
    assert document["final_metrics"]["total_cached_tokens"] == 2
    assert "total_cost_usd" not in document["final_metrics"]
    assert document["notes"] == "holon run ended failure (engine_crashed): the engine stopped"


def test_a_run_with_nothing_recorded_has_one_step(tmp_path):
    document = validated(
        tmp_path,
        build_trajectory(events=[], calls=[], manifest={}, prompt=None, started_at=None),
    )
    assert document["steps"] == [
        {"source": "system", "message": "holon: ended failure (unknown)", "step_id": 1}
    ]
    assert document["agent"] == {
        "name": "unknown",
        "version": "unknown",
        "extra": {"harness": "holon-agent"},
    }


def test_the_oracle_rejects_what_atif_forbids(tmp_path):
    document = build_trajectory(
        events=[], calls=[], manifest={}, prompt=("", "task"), started_at=None
    )
    document["steps"][0]["tool_calls"] = []  # a user step cannot call tools
    document["steps"][0]["step_id"] = 2
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(document))
    done = harbor_verdict(path)
    assert done.returncode == 1
    assert "only applicable when source is 'agent'" in done.stderr


SONNET_RUN = {
    "outcome": "success",
    "metadata": {"engine": {"name": "claude", "model": "claude-sonnet-4-5"}},
}


def test_side_calls_to_another_model_are_left_out_of_the_steps(tmp_path):
    def call(model: str, tokens: int) -> dict[str, Any]:
        usage = {"input_tokens": tokens, "output_tokens": 1}
        return {"kind": "model", "status": 200, "model": model, "usage": usage, "cost_usd": 0.5}

    events = [
        {"seq": 1, "ts": 0.1, "type": "message", "text": "first"},
        {"seq": 2, "ts": 0.2, "type": "tool_call", "tool": "Bash", "tool_id": "t1"},
        {"seq": 3, "ts": 0.3, "type": "tool_result", "tool_id": "t1", "status": "ok"},
        {"seq": 4, "ts": 0.4, "type": "message", "text": "done"},
    ]
    calls = [call("claude-haiku-4-5", 7), call("claude-sonnet-4-5", 100)]
    calls += [{"kind": "model", "status": 529, "model": "claude-sonnet-4-5", "usage": {}}]
    calls += [call("claude-sonnet-4-5", 200)]
    document = validated(
        tmp_path,
        build_trajectory(
            events=events, calls=calls, manifest=SONNET_RUN, prompt=None, started_at=None
        ),
    )
    document_steps = document["steps"]
    assert [s["metrics"]["prompt_tokens"] for s in document_steps] == [100, 200]
    assert {s["model_name"] for s in document_steps} == {"claude-sonnet-4-5"}
    assert document["extra"]["step_metrics"] == "gateway"
