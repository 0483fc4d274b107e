"""Budgets kept by the gateway: the call after the limit is refused in the wire's own format,
holon stops the engine, the run ends ``budget_exceeded`` with the work so far in diff.patch."""

from __future__ import annotations

import json

import pytest

from holon_core.testing import make_task, run_agent

from .kit import REAL_KEY
from .test_gateway_engines import ENGINES, engine_env


def budget_task(tmp_path, budget):
    spec = {"constraints": {"budget": budget}}
    files: dict[str, str | bytes] = {"README.md": "hi\n"}
    return make_task(tmp_path / "task", goal="Create hello.txt", files=files, spec_extra=spec)


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_the_call_after_the_limit_is_refused_and_the_run_ends_budget_exceeded(
    engine, engine_binary, https_provider, ca_file, tmp_path, assert_valid_manifest
):
    engine_binary(engine)
    server = https_provider("write-and-run")
    task = budget_task(tmp_path, {"max_model_calls": 1})
    result = run_agent(task, engine, env=engine_env(server, engine, ca_file), timeout=240)
    manifest = assert_valid_manifest(result.manifest)
    assert result.exit_code == 1, result.stderr
    assert manifest["metadata"]["reason"] == "budget_exceeded", manifest["error"]
    assert "max_model_calls 1" in manifest["error"]
    budget = manifest["metadata"]["budget"]
    assert budget["exceeded"] == "max_model_calls" and budget["max_model_calls"] == 1
    assert budget["spent"]["model_calls"] == 1
    # Only the first model call went upstream; the work it asked for is in diff.patch.
    assert [r.turn for r in server.requests if r.kind == "turn"] == [0]
    assert "hello.txt" in (task.output / "diff.patch").read_text()
    calls = [json.loads(line) for line in (task.output / "evidence/model-calls.ndjson").open()]
    refused = [c for c in calls if c.get("error") == "budget_exceeded"]
    assert refused and refused[0]["status"] == 400


def test_a_cost_budget_stops_after_the_call_that_spent_it(
    engine_binary, https_provider, ca_file, tmp_path
):
    engine_binary("claude")
    server = https_provider("write-and-run")
    task = budget_task(tmp_path, {"max_cost_usd": 0.0001})
    result = run_agent(task, "claude", env=engine_env(server, "claude", ca_file), timeout=240)
    assert result.manifest is not None
    meta = result.manifest["metadata"]
    assert meta["reason"] == "budget_exceeded"
    assert meta["budget"]["exceeded"] == "max_cost_usd"
    assert meta["budget"]["spent"]["cost_usd"] >= 0.0001
    assert meta["budget"]["spent"]["model_calls"] == 1  # the overshoot: that one call


def test_holon_max_cost_usd_applies_with_the_spec_and_the_stricter_wins(
    engine_binary, https_provider, ca_file, tmp_path
):
    engine_binary("claude")
    server = https_provider("write-and-run")
    task = budget_task(tmp_path, {"max_cost_usd": 100})
    env = engine_env(server, "claude", ca_file) | {"HOLON_MAX_COST_USD": "0.0001"}
    result = run_agent(task, "claude", env=env, timeout=240)
    assert result.manifest is not None
    budget = result.manifest["metadata"]["budget"]
    assert (budget["max_cost_usd"], budget["exceeded"]) == (0.0001, "max_cost_usd")


@pytest.mark.parametrize(
    ("extra", "budget", "named"),
    [
        ({"HOLON_GATEWAY": "off"}, {"max_tokens": 10}, "HOLON_GATEWAY is off"),
        ({"HOLON_MODEL": "fake-model-1"}, {"max_cost_usd": 1}, "needs a price for model"),
        ({"HOLON_MAX_COST_USD": "lots"}, {"max_tokens": 10}, "HOLON_MAX_COST_USD='lots'"),
    ],
)
def test_a_budget_that_cannot_be_kept_is_refused_before_the_engine_starts(
    https_provider, ca_file, tmp_path, extra, budget, named
):
    server = https_provider("final-only")
    task = budget_task(tmp_path, budget)
    env = engine_env(server, "claude", ca_file) | extra
    result = run_agent(task, "claude", env=env, timeout=120)
    assert result.exit_code == 1
    assert result.manifest is not None
    assert result.manifest["metadata"]["reason"] == "invalid_input"
    assert named in result.manifest["error"]
    assert server.requests == []
    assert REAL_KEY not in json.dumps(result.manifest)


def test_holon_agent_max_cost_flag(engine_binary, https_provider, ca_file, tmp_path):
    engine_binary("claude")
    server = https_provider("write-and-run")
    task = make_task(tmp_path / "task", goal="Create hello.txt", files={"README.md": "hi\n"})
    env = engine_env(server, "claude", ca_file)
    result = run_agent(task, "claude", env=env, args=["--max-cost", "0.0001"], timeout=240)
    assert result.manifest is not None
    budget = result.manifest["metadata"]["budget"]
    assert (budget["max_cost_usd"], budget["exceeded"]) == (0.0001, "max_cost_usd")
    bad = run_agent(task, "claude", env=env, args=["--max-cost", "lots"], timeout=120)
    assert bad.exit_code == 1 and bad.manifest is not None
    assert "(or --max-cost)" in bad.manifest["error"]
