from __future__ import annotations

import pytest

from holon_core.builtin.fallback_skills import PER_SKILL_CAP, TOTAL_CAP, render_fallback
from holon_core.errors import SkillError
from holon_core.skill.layers import resolve_skills
from holon_core.skill.package import MAX_FILE, load_skill


def make_skill(root, name, description="Does things", body="Steps.\n", dirname=None):
    d = root / (dirname or name)
    d.mkdir(parents=True)
    (d / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n---\n{body}")
    return d


@pytest.mark.parametrize(
    ("name", "dirname", "match"),
    [("Bad_Name", None, "is invalid"), ("good-name", "other-dir", "differs from its directory")],
)
def test_invalid_names(tmp_path, name, dirname, match):
    with pytest.raises(SkillError, match=match):
        load_skill(make_skill(tmp_path, name, dirname=dirname), "flag")


def test_missing_front_matter_and_description(tmp_path):
    d = tmp_path / "plain"
    d.mkdir()
    (d / "SKILL.md").write_text("no front matter")
    with pytest.raises(SkillError, match="no YAML front matter"):
        load_skill(d, "flag")
    (d / "SKILL.md").write_text("---\nname: plain\n---\n")
    with pytest.raises(SkillError, match="description is missing"):
        load_skill(d, "flag")


def test_size_caps(tmp_path):
    d = make_skill(tmp_path, "big")
    (d / "data.bin").write_bytes(b"x" * (MAX_FILE + 1))
    with pytest.raises(SkillError, match="limit is"):
        load_skill(d, "flag")


def test_precedence_and_order(tmp_path):
    a = make_skill(tmp_path / "flag", "zeta")
    b = make_skill(tmp_path / "flag", "alpha")
    skills, notes = resolve_skills([], [a, b], tmp_path)
    assert [s.name for s in skills] == ["alpha", "zeta"] and notes == []
    with pytest.raises(SkillError, match="two flag skills"):
        resolve_skills([], [a, a], tmp_path)


def test_spec_ref_resolved_in_input_and_overridden_by_flag(tmp_path):
    make_skill(tmp_path / "input" / "skills", "shared")
    flag = make_skill(tmp_path / "flagdir", "shared")
    skills, notes = resolve_skills(["shared"], [flag], tmp_path / "input")
    assert [(s.name, s.source) for s in skills] == [("shared", "flag")]
    assert "replaces spec" in notes[0]


def test_unknown_spec_skill_lists_available(tmp_path):
    with pytest.raises(SkillError, match="not found"):
        resolve_skills(["nope"], [], tmp_path)


def test_fallback_caps(tmp_path):
    skills = [
        load_skill(make_skill(tmp_path, f"s{i}", body="y" * 20_000), "flag") for i in range(4)
    ]
    text, staged = render_fallback(skills)
    assert len(text) <= TOTAL_CAP + 100
    assert all(len(block) <= PER_SKILL_CAP for block in text.split("## Skill: ")[1:])
    assert [s.staging for s in staged] == ["fallback", "fallback", "none", "none"]
