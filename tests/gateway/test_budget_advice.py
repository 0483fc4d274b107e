"""A budget the gateway cannot keep is refused with the fix for the cause: turning the
gateway on helps only when it was off; an engine that calls no model API cannot be metered."""

from __future__ import annotations

from pathlib import Path

from holon_core.testing import make_task, run_agent


def test_an_engine_without_a_model_api_is_not_told_to_turn_the_gateway_on(tmp_path: Path) -> None:
    task = make_task(tmp_path / "t", replay=[{"say": "done"}])
    result = run_agent(task, "replay", args=["--max-cost", "1"])
    assert result.exit_code == 1 and result.manifest is not None
    error = result.manifest["error"]
    assert "engine replay calls no model API" in error, error
    assert "HOLON_GATEWAY=on" not in error
    assert "remove the budget" in error


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
