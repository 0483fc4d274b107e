"""A budget the gateway cannot keep is refused with the fix for the cause: turning the
gateway on helps only when it was off; an engine whose model calls have no API holon knows
cannot be metered; one that calls no model at all (replay) keeps any budget at a cost of 0."""

from __future__ import annotations

from pathlib import Path

from holon_core.testing import make_task, run_agent


def test_an_engine_without_a_model_api_is_not_told_to_turn_the_gateway_on(tmp_path: Path) -> None:
    """The generic acp engine without HOLON_ACP_MODEL_API calls a model holon cannot meter."""
    task = make_task(tmp_path / "t", replay=[{"say": "done"}])
    env = {"HOLON_ACP_COMMAND": "true"}
    result = run_agent(task, "acp", env=env, args=["--max-cost", "1"])
    assert result.exit_code == 1 and result.manifest is not None
    error = result.manifest["error"]
    assert "engine acp calls no model API" in error, error
    assert "HOLON_GATEWAY=on" not in error
    assert "remove the budget" in error


def test_an_engine_that_calls_no_model_keeps_a_budget_at_a_cost_of_0(tmp_path: Path) -> None:
    task = make_task(tmp_path / "t", replay=[{"say": "done"}])
    result = run_agent(task, "replay", args=["--max-cost", "1"])
    assert result.exit_code == 0, result.stderr
    assert result.manifest is not None
    assert result.manifest["metadata"]["cost"] == {"usd": 0.0, "source": "reported"}


def test_the_gateway_turned_off_is_told_to_turn_it_on(tmp_path: Path) -> None:
    task = make_task(tmp_path / "t", replay=[{"say": "done"}])
    env = {"HOLON_GATEWAY": "off", "ANTHROPIC_API_KEY": "sk-ant-test-advice-0001"}
    result = run_agent(task, "claude", env=env, args=["--max-cost", "1"])
    assert result.exit_code == 1 and result.manifest is not None
    error = result.manifest["error"]
    assert "HOLON_GATEWAY is off" in error and "HOLON_GATEWAY=on" in error, error


def test_recording_an_engine_without_a_model_api_is_not_told_to_turn_the_gateway_on(
    tmp_path: Path,
) -> None:
    task = make_task(tmp_path / "t", replay=[{"say": "done"}])
    result = run_agent(task, "replay", args=["--record", str(tmp_path / "rec")])
    assert result.exit_code == 1 and result.manifest is not None
    error = result.manifest["error"]
    assert "engine replay declares no model API" in error, error
    assert "HOLON_GATEWAY=on" not in error
    assert "without --record" in error
