"""Copy skills into an engine's native skills directory inside the run-local home.

Copies, never symlinks: the engine may follow links out of its home, and the user's skill
sources must stay untouched by whatever the run does.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from holon_core.engine.adapter import StagedSkill
from holon_core.skill.package import NOT_PACKAGED

if TYPE_CHECKING:
    from holon_core.skill.package import ResolvedSkill


def copy_skills(skills: list[ResolvedSkill], target_root: Path) -> list[StagedSkill]:
    target_root.mkdir(parents=True, exist_ok=True)
    staged: list[StagedSkill] = []
    for skill in skills:
        target = target_root / skill.name
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(
            skill.path, target, symlinks=False, ignore=shutil.ignore_patterns(*NOT_PACKAGED)
        )
        staged.append(StagedSkill(name=skill.name, staging="native", path=target))
    return staged
