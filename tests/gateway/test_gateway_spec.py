"""``constraints.budget`` in the spec: known to the one spec check the run and the probe share
(no unknown-field warning), and a bad value refused by both with the same message."""

from __future__ import annotations

import pytest

from holon_core.spec.load import build_spec
from holon_core.spec.rules import read_spec
from holon_core.testing import make_task, run_agent


def test_a_budget_is_a_known_field(tmp_path):
    budget = {"max_cost_usd": 2.5, "max_tokens": 100000, "max_model_calls": 20}
    task = make_task(tmp_path / "t", spec_extra={"constraints": {"budget": budget}})
    document = read_spec(task.spec)
    assert document.warnings == []
    budget_read = build_spec(document).constraints.budget
    assert budget_read is not None and budget_read.max_model_calls == 20


@pytest.mark.parametrize(
    ("budget", "field", "says"),
    [
        ({"max_tokens": 0}, "constraints.budget.max_tokens", "at least 1"),
        ({"max_model_calls": 2.5}, "constraints.budget.max_model_calls", "whole number"),
        ({"max_cost_usd": -1}, "constraints.budget.max_cost_usd", "positive number"),
        ({"max_cost_usd": "2.5"}, "constraints.budget.max_cost_usd", "positive number"),
        ("lots", "constraints.budget", "must be a mapping"),
    ],
)
def test_a_bad_budget_is_refused_by_the_probe_and_the_run_alike(tmp_path, budget, field, says):
    task = make_task(tmp_path / "t", spec_extra={"constraints": {"budget": budget}}, replay=[])
    probe = run_agent(task, args=["--probe"])
    run = run_agent(task)
    for result in (probe, run):
        assert result.exit_code == 1, result.stderr
        assert result.manifest is not None
        assert result.manifest["metadata"]["reason"] == "invalid_spec"
        assert field in result.manifest["error"] and says in result.manifest["error"]
    assert probe.manifest is not None and run.manifest is not None
    assert probe.manifest["error"] == run.manifest["error"]


@pytest.mark.parametrize(
    ("env", "budget", "says"),
    [
        ({"HOLON_GATEWAY": "maybe"}, None, "HOLON_GATEWAY='maybe'"),
        ({"HOLON_MAX_COST_USD": "lots"}, None, "HOLON_MAX_COST_USD='lots'"),
        ({"HOLON_GATEWAY": "off"}, {"max_tokens": 10}, "HOLON_GATEWAY is off"),
        ({"HOLON_PRICES": "/no/such/prices.yaml"}, None, "HOLON_PRICES=/no/such/prices.yaml"),
    ],
)
def test_the_probe_refuses_the_gateway_settings_the_run_refuses(
    engine_binary, scripted_provider, tmp_path, env, budget, says
):
    engine_binary("claude")
    server = scripted_provider("final-only")
    spec = {"constraints": {"budget": budget}} if budget else {}
    task = make_task(tmp_path / "t", spec_extra=spec)
    env = server.engine_env("claude") | env
    probe = run_agent(task, "claude", env=env, args=["--probe"])
    run = run_agent(task, "claude", env=env)
    for result in (probe, run):
        assert result.exit_code == 1, result.stderr
        assert result.manifest is not None
        assert result.manifest["metadata"]["reason"] == "invalid_input"
        assert says in result.manifest["error"]
    assert probe.manifest is not None and run.manifest is not None
    assert probe.manifest["error"] == run.manifest["error"]
    assert server.requests == []
