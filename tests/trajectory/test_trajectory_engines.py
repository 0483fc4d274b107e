"""Every engine's run leaves ``evidence/trajectory.json`` that Harbor's own validator accepts,
and that says what happened: the task, the model's text, each tool call with its result,
per-step metrics from the gateway's call records and the run's totals from the manifest."""

from __future__ import annotations

import json
from typing import Any

import pytest

from holon_core.testing import make_task, run_agent

from .harbor import assert_atif_valid

#: A priced model each engine takes, and the settings its own tests use (short retries).
ENGINES = {
    "claude": ("claude-sonnet-4-5", {"HOLON_CLAUDE_MAX_RETRIES": "1"}),
    "codex": ("gpt-5.5", {"HOLON_SILENCE_TIMEOUT": "20"}),
    "gemini": ("gemini-2.5-flash", {"HOLON_GEMINI_MAX_ATTEMPTS": "1"}),
    "opencode": ("claude-sonnet-4-5", {"HOLON_OPENCODE_MAX_RETRIES": "1"}),
}


def run_engine(engine: str, server: Any, tmp_path: Any, **extra: str) -> Any:
    task = make_task(tmp_path / "task", goal="Create hello.txt", files={"README.md": "hi\n"})
    model, settings = ENGINES[engine]
    env = server.engine_env(engine) | settings | {"HOLON_MODEL": model} | extra
    return run_agent(task, engine, env=env, timeout=240)


def trajectory_of(result: Any) -> dict[str, Any]:
    path = result.output_dir / "evidence" / "trajectory.json"
    assert_atif_valid(path)
    document: dict[str, Any] = json.loads(path.read_text())
    return document


def calls_and_results(document: dict[str, Any]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Each tool call with the observation result answering it, in order."""
    pairs = []
    for step in document["steps"]:
        results = {
            r.get("source_call_id"): r for r in step.get("observation", {}).get("results", [])
        }
        for call in step.get("tool_calls", []):
            assert call["tool_call_id"] in results, f"no result for {call}"
            pairs.append((call, results[call["tool_call_id"]]))
    return pairs


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_an_engine_run_writes_a_valid_trajectory(
    engine, engine_binary, scripted_provider, tmp_path
):
    engine_binary(engine)
    server = scripted_provider("write-and-run")
    result = run_engine(engine, server, tmp_path)
    assert result.manifest is not None and result.manifest["outcome"] == "success", result.stderr
    assert "evidence/trajectory.json" in result.manifest["artifacts"]
    document = trajectory_of(result)
    meta = result.manifest["metadata"]
    assert document["schema_version"] == "ATIF-v1.8"
    assert document["agent"]["name"] == engine
    assert document["agent"]["model_name"] == ENGINES[engine][0]
    assert document["session_id"] == meta["session_id"]
    steps = document["steps"]
    assert [s["step_id"] for s in steps] == list(range(1, len(steps) + 1))
    user = [s for s in steps if s["source"] == "user"]
    assert len(user) == 1 and "Create hello.txt" in user[0]["message"]
    agent = [s for s in steps if s["source"] == "agent"]
    said = "\n".join(s["message"] for s in agent)
    assert "I will create hello.txt." in said
    assert "Created hello.txt and checked its content." in agent[-1]["message"]
    pairs = calls_and_results(document)
    assert len(pairs) == 2
    (write, _), (shell, shown) = pairs
    assert "hello.txt" in json.dumps(write["arguments"])
    assert "cat hello.txt" in json.dumps(shell["arguments"])
    assert "hello from holon" in shown["content"] and shown["extra"]["status"] == "ok"
    # One agent step per model call, each with the call's tokens and cost from the gateway.
    turns = [r for r in server.requests if r.kind == "turn"]
    assert len(agent) == len(turns) == 3
    for step in agent:
        assert step["llm_call_count"] == 1 and step["model_name"] == ENGINES[engine][0]
        assert step["metrics"]["prompt_tokens"] == 100
        assert step["metrics"]["completion_tokens"] == 20
        assert step["metrics"]["cost_usd"] > 0
    final = document["final_metrics"]
    assert final["total_prompt_tokens"] == meta["usage"]["input_tokens"] == 300
    assert final["total_completion_tokens"] == meta["usage"]["output_tokens"] == 60
    assert final["total_cost_usd"] == meta["cost"]["usd"]
    assert final["total_steps"] == len(steps)
    assert document["extra"]["outcome"] == "success" and document["extra"]["reason"] == "ok"


def test_without_the_gateway_the_totals_are_the_engines(engine_binary, scripted_provider, tmp_path):
    engine_binary("claude")
    server = scripted_provider("write-and-run")
    result = run_engine("claude", server, tmp_path, HOLON_GATEWAY="off")
    assert result.manifest is not None and result.manifest["outcome"] == "success", result.stderr
    document = trajectory_of(result)
    assert all("metrics" not in s for s in document["steps"])
    final = document["final_metrics"]
    assert final["total_completion_tokens"] == result.manifest["metadata"]["usage"]["output_tokens"]
    assert final["extra"]["source"] == "engine"


def test_a_failed_engine_run_says_why(engine_binary, scripted_provider, tmp_path):
    engine_binary("claude")
    server = scripted_provider("auth-401")
    result = run_engine("claude", server, tmp_path)
    assert result.manifest is not None and result.manifest["outcome"] == "failure"
    document = trajectory_of(result)
    reason = result.manifest["metadata"]["reason"]
    assert document["extra"]["reason"] == reason
    assert document["notes"].startswith(f"holon run ended failure ({reason})")
    retry, last = document["steps"][-2:]
    assert retry["source"] == "system" and "authentication_failed" in retry["message"]
    assert last["source"] == "system"
    assert last["message"].startswith(f"holon: ended failure ({reason})")
