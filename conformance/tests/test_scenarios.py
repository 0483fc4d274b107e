"""Every ready scenario loads, and the documented turn rules hold."""

from __future__ import annotations

import json

import pytest
from holon_conformance.provider import ScenarioError, library_names, load_scenario, parse_scenario

READY = {
    "final-only",
    "write-and-run",
    "auth-401",
    "server-500",
    "flaky-500",
    "stall",
    "drop",
    "use-skill",
    "max-turns",
    "long-tool",
}


def test_the_ready_library_is_complete():
    assert set(library_names()) >= READY
    for name in library_names():
        assert load_scenario(name).description


def test_write_and_run_slots():
    scenario = load_scenario("write-and-run")
    actions = [scenario.slot_for(n).turn.action for n in range(5)]
    assert actions == ["write_file", "run_shell", "final", "final", "final"]


def test_gates_guard_the_next_action_without_taking_a_slot():
    scenario = load_scenario("flaky-500")
    slot = scenario.slot_for(0)
    assert slot.turn.action == "write_file"
    assert [(g.action, g.times) for _, g in slot.gates] == [("error", 1)]
    assert scenario.slot_for(1).gates == ()


def test_repeat_forever_covers_every_later_slot():
    scenario = load_scenario("max-turns")
    assert {scenario.slot_for(n).turn.args["command"] for n in (0, 7, 500)} == {"echo step"}


def test_scenarios_load_from_json_and_yaml_files(tmp_path):
    turns = [{"run_shell": "ls", "say": "listing", "delay": 0.5}, {"final": "done"}]
    (tmp_path / "s.json").write_text(json.dumps({"turns": turns}))
    (tmp_path / "s.yaml").write_text(
        "- run_shell: ls\n  say: listing\n  delay: 0.5\n- final: done\n"
    )
    for path in (tmp_path / "s.json", tmp_path / "s.yaml"):
        scenario = load_scenario(path)
        assert scenario.turns[0].args == {"command": "ls"}
        assert scenario.turns[0].delay == 0.5
        assert scenario.turns[1].args == {"text": "done"}


@pytest.mark.parametrize(
    "bad",
    [
        [],
        [{"final": "a", "run_shell": "b"}],
        [{"write_file": {"path": "x"}}],
        [{"stall": {"seconds": 999}}],
        [{"final": "x", "colour": "red"}],
        [{"error": {"status": 500}, "times": 0}],
    ],
)
def test_malformed_scenarios_are_rejected(bad):
    with pytest.raises(ScenarioError):
        parse_scenario(bad)


def test_unknown_names_list_the_ready_ones():
    with pytest.raises(ScenarioError, match="write-and-run"):
        load_scenario("no-such-scenario")
