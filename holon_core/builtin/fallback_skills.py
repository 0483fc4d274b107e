"""Prompt-fallback skill staging for engines without native skills (skills ADR caps).

Each skill's ``SKILL.md`` body goes into the system prompt, at most 12,000 characters per
skill and 32,000 per run, in the resolver's deterministic order. ``references/`` and
``assets/`` are never inlined; the text says where the files are.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from holon_core.engine.adapter import StagedSkill
from holon_core.hooks.specs import hookimpl

if TYPE_CHECKING:
    from holon_core.engine.adapter import RunContext
    from holon_core.skill.package import ResolvedSkill

PER_SKILL_CAP = 12_000
TOTAL_CAP = 32_000
_TRUNCATED = "\n[... truncated by holon: skill text cap reached]"


def render_fallback(skills: list[ResolvedSkill]) -> tuple[str, list[StagedSkill]]:
    """The prompt section and the staging record; skills past the total cap are not staged."""
    parts: list[str] = []
    staged: list[StagedSkill] = []
    used = 0
    for skill in skills:
        block = (
            f"## Skill: {skill.name}\n{skill.description}\n(files: {skill.path})\n\n{skill.body}"
        )
        if len(block) > PER_SKILL_CAP:
            block = block[: PER_SKILL_CAP - len(_TRUNCATED)] + _TRUNCATED
        if used + len(block) > TOTAL_CAP:
            staged.append(StagedSkill(name=skill.name, staging="none"))
            continue
        used += len(block)
        parts.append(block)
        staged.append(StagedSkill(name=skill.name, staging="fallback"))
    if not parts:
        return "", staged
    return "# Skills available in this run\n\n" + "\n\n".join(parts), staged


@hookimpl(trylast=True)
def holon_stage_skills(run: RunContext, skills: list[ResolvedSkill]) -> list[StagedSkill] | None:
    if not skills:
        return []
    text, staged = render_fallback(skills)
    if text:
        run.prompt.system = f"{run.prompt.system}\n\n{text}".strip()
    return staged
