"""The engines' own workspace skill folders: each adapter declares exactly the folders its
engine was measured to discover from its cwd (../shared/research/engines.md section 7), and
the one rule (:mod:`holon_core.agent.native_skills`) refuses a bad skill in any of them, naming
the folder and the rule. Unit level: the real-engine runs are in the adapters' tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from holon_core.agent.native_skills import find_native_skills
from holon_core.errors import SkillError
from holon_core.hooks.manager import load_plugins

#: engines.md section 7, "discovered (verified)", the ``<cwd>/...`` entries only.
MEASURED = {
    "claude": {".claude/skills"},
    "codex": {".agents/skills", ".codex/skills"},
    "gemini": {".gemini/skills", ".agents/skills"},
    "opencode": {".opencode/skills", ".agents/skills"},
    "replay": set(),
}


@pytest.mark.parametrize("engine", sorted(MEASURED))
def test_declared_folders_are_the_measured_ones(engine: str) -> None:
    declared = load_plugins({}).get_engine(engine).workspace_skill_dirs
    assert set(declared) == MEASURED[engine]
    assert len(declared) == len(set(declared))


def _skill(root: Path, rel: str, front: str) -> None:
    (root / rel).mkdir(parents=True)
    (root / rel / "SKILL.md").write_text(f"---\n{front}\n---\nbody\n", encoding="utf-8")


@pytest.mark.parametrize("engine", ["codex", "gemini"])
def test_a_bad_skill_in_each_declared_folder_is_refused(engine: str, tmp_path: Path) -> None:
    dirs = load_plugins({}).get_engine(engine).workspace_skill_dirs
    for folder in dirs:
        ws = tmp_path / engine / folder.replace("/", "_")
        _skill(ws, f"{folder}/bad", "name: Bad_Name\ndescription: d")
        with pytest.raises(SkillError) as refused:
            find_native_skills(ws, dirs, [])
        assert f"workspace skill {folder}/bad" in refused.value.message
        assert "is invalid" in refused.value.message


def test_the_same_skill_in_two_folders_is_recorded_once(tmp_path: Path) -> None:
    dirs = load_plugins({}).get_engine("gemini").workspace_skill_dirs
    for folder in dirs:
        _skill(tmp_path, f"{folder}/shared", "name: shared\ndescription: d")
    found = find_native_skills(tmp_path, dirs, [])
    assert [(folder, skill.name) for folder, skill in found] == [(dirs[0], "shared")]


def test_a_folder_that_leads_out_of_the_workspace_is_refused(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    _skill(elsewhere, "ok", "name: ok\ndescription: d")
    ws = tmp_path / "ws"
    (ws / ".agents").mkdir(parents=True)
    (ws / ".agents" / "skills").symlink_to(elsewhere)
    with pytest.raises(SkillError) as refused:
        find_native_skills(ws, (".agents/skills",), [])
    assert ".agents/skills in the workspace leads out of it" in refused.value.message


def test_a_skill_md_that_is_a_symlink_is_named_as_one(tmp_path: Path) -> None:
    (tmp_path / "outside.md").write_text("---\nname: x\ndescription: d\n---\n", "utf-8")
    (tmp_path / "ws" / ".claude" / "skills" / "x").mkdir(parents=True)
    (tmp_path / "ws" / ".claude" / "skills" / "x" / "SKILL.md").symlink_to(tmp_path / "outside.md")
    with pytest.raises(SkillError) as refused:
        find_native_skills(tmp_path / "ws", (".claude/skills",), [])
    assert "workspace skill .claude/skills/x: its SKILL.md is a symlink" in refused.value.message
