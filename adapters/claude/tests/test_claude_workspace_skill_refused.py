"""A bad skill in the workspace's own ``.claude/skills`` stops the run before Claude Code
starts: the one rule for the engines' own folders (docs/skills-runtime.md) holds against the
real CLI, which would otherwise discover the skill itself.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from holon_conformance.provider import parse_scenario

from holon_core.testing import make_task, run_agent

pytestmark = pytest.mark.engine("claude")

VALUE = "kite-zinc-66024"
SCENARIO = {"description": "never reached", "turns": [{"final": {"text": "Done."}}]}


def test_bad_workspace_skills_fail_invalid_skill_before_the_engine(
    claude_binary, scripted_provider, tmp_path, assert_valid_manifest
):
    server = scripted_provider(parse_scenario(SCENARIO, "never"))
    env = {**server.engine_env("claude"), "HOLON_MODEL": "fake-model-1", "REGION_NAME": VALUE}
    bad_front = make_task(
        tmp_path / "front",
        files={".claude/skills/bad/SKILL.md": "---\nname: [not, a, name]\n---\nbody\n"},
        spec_extra={"context": {"pass_env": ["REGION_NAME"]}},
    )
    # A passed value in a path holon records: redacted even on this early refusal.
    moved = bad_front.workspace.rename(bad_front.root / f"ws-{VALUE}")
    bad_front = replace(bad_front, workspace=moved)
    outside = tmp_path / "outside.txt"
    outside.write_text("not part of any skill\n", encoding="utf-8")
    linked = make_task(
        tmp_path / "link",
        files={".claude/skills/leaky/SKILL.md": "---\nname: leaky\ndescription: d\n---\nb\n"},
        git_repo=False,
    )
    (linked.workspace / ".claude/skills/leaky/notes.md").symlink_to(outside)
    expected = {
        bad_front: ("workspace skill .claude/skills/bad", "name ['not', 'a', 'name'] is invalid"),
        linked: ("workspace skill .claude/skills/leaky", "links out of its skill"),
    }
    for task, (names_skill, names_rule) in expected.items():
        result = run_agent(task, "claude", env=env, timeout=90)
        manifest = assert_valid_manifest(result.manifest)
        assert (result.exit_code, manifest["metadata"]["reason"]) == (1, "invalid_skill")
        assert names_skill in manifest["error"] and names_rule in manifest["error"]
        assert "process" not in manifest["metadata"], "the engine was started"
        assert VALUE not in result.stdout + result.stderr
        for path in task.output.rglob("*"):
            assert not path.is_file() or VALUE.encode() not in path.read_bytes(), path
    assert server.requests == [], "a request reached the model server"
    assert Path(claude_binary).is_file()
