"""Build the agent's input directory (RFC-0002 section 4): spec, context, prompts, skills.

Everything is copied, so the agent sees a self-contained input that a container runner could
mount as is; ``spec.yaml`` is copied byte for byte (or written from ``--goal``: task_spec.py).
Copies never leave the directory they come from, refuse special files and are capped
(``copy_in.py``); once built, the input dir is made read-only and fingerprinted, so the
runner can prove after the run that nothing changed it.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from holon_core.errors import InputError
from holon_core.runner.copy_in import Budget, copy_file, copy_tree
from holon_core.runner.skill_sources import copy_host_skills
from holon_core.skill.package import load_skill
from holon_core.workspace.verify import Fingerprint, take_fingerprint

if TYPE_CHECKING:
    from holon_core.models.spec import Spec


@dataclass
class InputSources:
    """What the user pointed at; None means "not given"."""

    spec: Path | None
    context: Path | None = None
    system_prompt: Path | None = None
    user_prompt: Path | None = None
    skills: list[Path] = field(default_factory=list)
    #: A spec written by the runner (``holon run --goal``), in place of a copy of ``spec``.
    spec_text: str | None = None


def default_context(spec_path: Path) -> Path | None:
    """``context/`` next to the spec file, the layout ``examples/`` uses."""
    candidate = spec_path.parent / "context"
    return candidate if candidate.is_dir() else None


def build_input(
    sources: InputSources, spec: Spec, input_dir: Path, env: Mapping[str, str] | None = None
) -> list[Path]:
    """Fill ``input_dir``; return the copied skill directories to pass as ``--skill``.

    ``env`` is the user's environment, for the skills only the host has (user dirs, store).
    """
    input_dir.mkdir(parents=True, exist_ok=True)
    budget = Budget()
    if sources.spec_text is not None:
        (input_dir / "spec.yaml").write_text(sources.spec_text, encoding="utf-8")
    elif sources.spec is not None:
        copy_file(sources.spec, input_dir / "spec.yaml", budget)
    # Without a spec file (--goal alone) nothing ships beside it: no default context/.
    spec_dir = sources.spec.parent if sources.spec is not None else None
    context = sources.context or (default_context(sources.spec) if sources.spec else None)
    if context is not None:
        if not context.is_dir():
            raise InputError(
                f"context directory {context} does not exist",
                hint="pass an existing directory to --context",
            )
        # The default context/ ships with the spec: it must not lead out of the spec's dir.
        within = None if sources.context else spec_dir
        copy_tree(context, input_dir / "context", budget, within=within)
    for source, name in ((sources.system_prompt, "system.md"), (sources.user_prompt, "user.md")):
        if source is None:
            continue
        if not source.exists():
            raise InputError(
                f"prompt file {source} does not exist",
                hint="pass an existing file to --system-prompt / --user-prompt",
            )
        (input_dir / "prompts").mkdir(exist_ok=True)
        copy_file(source, input_dir / "prompts" / name, budget)
    if spec_dir is not None:
        _copy_spec_skills(spec, spec_dir, input_dir, budget)
    refs = spec.metadata.skills
    copy_host_skills(refs, spec_dir or Path.cwd(), input_dir, env or os.environ, budget)
    return _copy_flag_skills(sources.skills, input_dir / "flag-skills", budget)


def _copy_spec_skills(spec: Spec, spec_dir: Path, input_dir: Path, budget: Budget) -> None:
    """Relative skill references in the spec resolve against the spec's directory (and stay
    inside it: a skill shipped with a spec cannot link out of the spec's directory)."""
    for ref in spec.metadata.skills:
        rel = Path(ref)
        if rel.is_absolute() or ".." in rel.parts:
            continue  # absolute: read in place; '..' would escape the input dir
        for base in (Path(), Path("skills")):
            source = spec_dir / base / rel
            target = input_dir / base / rel
            if (source / "SKILL.md").is_file() and not target.exists():
                copy_tree(source, target, budget, within=spec_dir)
                break


def _copy_flag_skills(skills: list[Path], dest: Path, budget: Budget) -> list[Path]:
    """Each ``--skill`` checked where the user keeps it (errors name their path), then copied
    to ``flag-skills/NN/<name>``: the order is kept and the directory keeps the skill's name,
    which engines discover skills by."""
    copied: list[Path] = []
    for index, source in enumerate(skills, start=1):
        if not (source / "SKILL.md").is_file():
            raise InputError(
                f"skill directory {source} has no SKILL.md",
                hint="pass a directory containing SKILL.md to --skill",
            )
        skill = load_skill(source, "flag")
        target = dest / f"{index:02d}" / skill.name
        copy_tree(source, target, budget)
        copied.append(target)
    return copied


def lock_input(input_dir: Path) -> Fingerprint:
    """Make the built input read-only (RFC-0003 4.1: the input is read-only to the agent) and
    fingerprint it, so a change by an engine that chmods it back is still caught."""
    _chmod_tree(input_dir, files=~0o222, dirs=~0o222)
    return take_fingerprint(input_dir, git=False)


def unlock_input(input_dir: Path) -> None:
    """After the run: directories writable again (so the run dir can be removed); files stay
    read-only."""
    _chmod_tree(input_dir, files=~0, dirs=~0, add=stat.S_IRWXU)


def _chmod_tree(top: Path, *, files: int, dirs: int, add: int = 0) -> None:
    if top.is_symlink() or not top.is_dir():
        return  # replaced during the run (the verification says so): follow nothing
    for dirname, dirnames, filenames in os.walk(top, topdown=False):
        dirpath = Path(dirname)
        for name in filenames:
            path = dirpath / name
            st = path.lstat()
            if stat.S_ISREG(st.st_mode):
                path.chmod(stat.S_IMODE(st.st_mode) & files)
        for name in dirnames:
            _chmod_dir(dirpath / name, dirs, add)
    _chmod_dir(top, dirs, add)


def _chmod_dir(path: Path, keep: int, add: int) -> None:
    st = path.lstat()
    if stat.S_ISDIR(st.st_mode):
        path.chmod((stat.S_IMODE(st.st_mode) & keep) | add)
