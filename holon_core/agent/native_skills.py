"""The engines' own skill folders in the workspace (``.claude/skills``, ``.agents/skills``...).

One rule for every engine: such a folder is part of the workspace the user handed over, like
``CLAUDE.md`` or ``AGENTS.md``, and the engine discovers it natively from its cwd, as it would
outside holon. holon brings it under its own rules instead of hiding it (hiding would mean
changing the workspace or the engine's project settings): before the launch every skill in the
folders the adapter declares (``EngineAdapter.workspace_skill_dirs``) is validated like any
other skill (name, front matter, size caps, links), a bad one or one whose name collides with a
skill holon staged fails the run, its ``requires.env`` is checked and passed within
``context.pass_env`` (it came with the repository), and each is recorded in ``metadata.skills``
(``source: workspace``, ``native_dir``). The manifest states the rule in
``metadata.skills_policy``.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from holon_core.errors import SkillError
from holon_core.skill.package import ResolvedSkill, load_skill

#: ``metadata.skills_policy.workspace_dirs``: what holon does with the engines' own folders.
POLICY = "validated"


def find_native_skills(
    workspace: Path, dirs: Iterable[str], resolved: Iterable[ResolvedSkill]
) -> list[tuple[str, ResolvedSkill]]:
    """``(folder, skill)`` for every skill the engine would discover in the workspace.

    Raises :class:`SkillError` naming the folder for a skill that breaks holon's rules or
    shares its name with one of ``resolved`` (the engine would see both).
    """
    taken = {skill.name: skill for skill in resolved}
    found: list[tuple[str, ResolvedSkill]] = []
    seen: dict[str, str] = {}
    root = workspace.resolve()
    for rel in dirs:
        base = workspace / rel
        if not base.is_dir():
            continue
        if not base.resolve().is_relative_to(root):
            raise SkillError(
                f"the engine's skill folder {rel} in the workspace leads out of it",
                hint=f"make {rel} a real directory inside the workspace",
            )
        for child in sorted(base.iterdir()):
            if not (child / "SKILL.md").exists() and not child.is_symlink():
                continue  # the engine skips a folder without SKILL.md too
            where = f"{rel}/{child.name}"
            if child.is_symlink():
                raise SkillError(
                    f"workspace skill {where} is a symlink",
                    hint="holon validates the engine's own skill folders; use a real directory",
                )
            if (child / "SKILL.md").is_symlink():  # load_skill would call it missing
                raise SkillError(
                    f"workspace skill {where}: its SKILL.md is a symlink (the engine would "
                    "follow it, possibly out of the workspace)",
                    hint="make SKILL.md a regular file inside the skill's folder",
                )
            try:
                skill = load_skill(child, "workspace")
            except SkillError as exc:
                raise SkillError(
                    f"workspace skill {where} (a folder the engine discovers itself): "
                    f"{exc.message}",
                    hint=exc.hint,
                ) from None
            if skill.name in taken:
                raise SkillError(
                    f"skill {skill.name!r} is both in {where} (the engine discovers it there) "
                    f"and among the skills holon stages ({taken[skill.name].path})",
                    hint="rename one, or move the workspace copy to .holon/skills",
                )
            if skill.name in seen:
                continue  # the same name in two of the engine's folders: the engine picks
            seen[skill.name] = where
            found.append((rel, skill))
    return found


def skills_policy(dirs: Iterable[str]) -> dict[str, Any]:
    """``metadata.skills_policy``: the rule, and the folders this engine discovers."""
    return {"workspace_dirs": POLICY, "dirs": list(dirs)}
