"""Fuzz spec loading and skill front matter: any text gives a value or a typed error.

Budget: :data:`holon_core.testing.fuzz.FUZZ` (fixed example counts, derandomized, no database).
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import yaml
from hypothesis import given
from hypothesis import strategies as st

from holon_core.errors import SkillError, SpecError
from holon_core.skill.package import ResolvedSkill, load_skill
from holon_core.spec.load import load_spec
from holon_core.testing.fuzz import FUZZ, json_values, mutated

#: Characters that steer the YAML scanner into its every state (anchors, tags, flows, blocks).
YAMLISH = st.text(alphabet=st.sampled_from(list("ab:-&*!|>[]{},#'\"?%@`\\\t\n 01.~")), max_size=200)
VALID_SPECS: list[dict[str, Any]] = [
    {"version": "v1", "kind": "Holon", "goal": "do it"},
    {
        "version": "v1",
        "kind": "Holon",
        "metadata": {"name": "n", "skills": ["s"]},
        "context": {"workspace": "w", "files": ["f"], "env": {"A": "b"}},
        "goal": {"description": "d", "issue_id": "1"},
        "output": {"artifacts": [{"path": "r.md", "required": True}]},
        "constraints": {"timeout": "10m", "max_steps": 3},
        "engine": {"name": "replay", "model": "m"},
    },
]


def _spec_text(draw_text: str | dict[str, Any]) -> str:
    return draw_text if isinstance(draw_text, str) else yaml.safe_dump(draw_text)


SPEC_TEXTS = st.one_of(
    YAMLISH,
    st.text(max_size=200),
    mutated(VALID_SPECS),
    st.builds(
        lambda v, extra: {**VALID_SPECS[1], "x": extra, "goal": v}, json_values(), json_values()
    ),
)


@FUZZ
@given(source=SPEC_TEXTS)
def test_spec_loading_gives_a_spec_or_a_spec_error(source):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "spec.yaml"
        path.write_text(_spec_text(source), encoding="utf-8")
        try:
            spec, warnings = load_spec(path)
        except SpecError as exc:
            assert len(str(exc)) < 4000, "an error quotes a bounded amount"
            return
        assert spec.goal_text.strip() and all(isinstance(w, str) for w in warnings)


FRONT = st.one_of(
    YAMLISH,
    st.fixed_dictionaries(
        {"name": st.one_of(st.just("fuzzed"), json_values()), "description": json_values()}
    ).map(yaml.safe_dump),
    st.dictionaries(st.text(max_size=8), json_values(), max_size=4).map(yaml.safe_dump),
)


@FUZZ
@given(front=FRONT, body=st.text(max_size=80), raw=st.binary(max_size=40))
def test_skill_front_matter_gives_a_skill_or_a_skill_error(front, body, raw):
    with tempfile.TemporaryDirectory() as tmp:
        skill = Path(tmp) / "fuzzed"
        skill.mkdir()
        for content in (f"---\n{front}\n---\n{body}".encode(), b"---\n" + raw + b"\n---\n"):
            (skill / "SKILL.md").write_bytes(content)
            try:
                loaded = load_skill(skill, "flag")
            except SkillError as exc:
                assert len(str(exc)) < 4000, "an error quotes a bounded amount"
                continue
            assert isinstance(loaded, ResolvedSkill) and loaded.name == "fuzzed"
