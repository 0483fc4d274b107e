"""Build the agent's input directory (RFC-0002 section 4): spec, context, prompts, skills.

Everything is copied, so the agent sees a self-contained, read-only-in-spirit input that a
container runner could mount as is; ``spec.yaml`` is copied byte for byte.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from holon_core.errors import InputError

if TYPE_CHECKING:
    from holon_core.models.spec import Spec


@dataclass
class InputSources:
    """What the user pointed at; None means "not given"."""

    spec: Path
    context: Path | None = None
    system_prompt: Path | None = None
    user_prompt: Path | None = None
    skills: list[Path] = field(default_factory=list)


def default_context(spec_path: Path) -> Path | None:
    """``context/`` next to the spec file, the layout ``examples/`` uses."""
    candidate = spec_path.parent / "context"
    return candidate if candidate.is_dir() else None


def build_input(sources: InputSources, spec: Spec, input_dir: Path) -> list[Path]:
    """Fill ``input_dir``; return the copied skill directories to pass as ``--skill``."""
    input_dir.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(sources.spec, input_dir / "spec.yaml")
    context = sources.context or default_context(sources.spec)
    if context is not None:
        if not context.is_dir():
            raise InputError(
                f"context directory {context} does not exist",
                hint="pass an existing directory to --context",
            )
        _copy_dir(context, input_dir / "context")
    for source, name in ((sources.system_prompt, "system.md"), (sources.user_prompt, "user.md")):
        if source is None:
            continue
        if not source.is_file():
            raise InputError(
                f"prompt file {source} does not exist",
                hint="pass an existing file to --system-prompt / --user-prompt",
            )
        (input_dir / "prompts").mkdir(exist_ok=True)
        shutil.copyfile(source, input_dir / "prompts" / name)
    _copy_spec_skills(spec, sources.spec.parent, input_dir)
    return _copy_flag_skills(sources.skills, input_dir / "flag-skills")


def _copy_spec_skills(spec: Spec, spec_dir: Path, input_dir: Path) -> None:
    """Relative skill references in the spec resolve against the spec's directory."""
    for ref in spec.metadata.skills:
        rel = Path(ref)
        if rel.is_absolute() or ".." in rel.parts:
            continue  # absolute: read in place; '..' would escape the input dir
        for base in (Path(), Path("skills")):
            source = spec_dir / base / rel
            target = input_dir / base / rel
            if (source / "SKILL.md").is_file() and not target.exists():
                _copy_dir(source, target)
                break


def _copy_flag_skills(skills: list[Path], dest: Path) -> list[Path]:
    copied: list[Path] = []
    for index, source in enumerate(skills, start=1):
        if not (source / "SKILL.md").is_file():
            raise InputError(
                f"skill directory {source} has no SKILL.md",
                hint="pass a directory containing SKILL.md to --skill",
            )
        target = dest / f"{index:02d}-{source.resolve().name}"
        _copy_dir(source, target)
        copied.append(target)
    return copied


def _copy_dir(source: Path, target: Path) -> None:
    """Symlinks are followed so the copy stands alone (no links back into the host)."""
    shutil.copytree(source, target, symlinks=False, ignore_dangling_symlinks=True)
