"""Where a run's skills come from and which one wins (docs/skills.md, "Layers").

Layers, low to high: ``builtin`` (shipped with holon-core) < ``user`` (``HOLON_SKILLS_PATH``,
else ``$XDG_CONFIG_HOME/holon/skills``) < ``workspace`` (``.holon/skills/`` in the workspace)
< ``spec`` (``metadata.skills``) < ``flag`` (``--skill``). The builtin and user layers are a
library: a skill from them is used only when the spec names it. Every skill of the workspace
layer is used (the project opted in by committing it), and so is every spec reference and
flag. A name found in two layers resolves to the higher one, with a note; a name given twice
in one layer is an error, except the user layer's path list, where the first entry wins
(like ``PATH``). The result is ordered by layer, then by name.

Under ``holon run`` the agent's ``HOME`` is run-local, so the runner copies what the spec needs
from the host (user-layer candidates, store entries, fetched archives) into the input dir
(:data:`USER_COPY`, :data:`STORE_COPY`, :data:`ARCHIVE_COPY`); those copies come first.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from holon_core.errors import SkillError
from holon_core.skill.package import LAYERS, ResolvedSkill, Source, builtin_skills_dir, load_skill
from holon_core.untrusted.quoting import clip, name_list

#: Input-dir copies the runner makes of host-only sources.
USER_COPY = "user-skills"
STORE_COPY = "skill-store"
ARCHIVE_COPY = "skill-archives"
WORKSPACE_SKILLS = Path(".holon") / "skills"
STORE_REF = re.compile(r"^([a-z0-9]+(?:-[a-z0-9]+)*)@([0-9A-Za-z][0-9A-Za-z.+-]{0,63})$")
PIN = "#sha256="


@dataclass
class Resolution:
    """The run's skills in order, precedence notes, and every skill's warnings."""

    skills: list[ResolvedSkill] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def warnings(self) -> list[str]:
        return [w for skill in self.skills for w in skill.warnings]


def user_dirs(env: Mapping[str, str], input_dir: Path | None = None) -> list[Path]:
    """The user layer's directories, first wins: the runner's copy, then the environment's."""
    dirs = [input_dir / USER_COPY] if input_dir is not None else []
    listed = env.get("HOLON_SKILLS_PATH")
    if listed is not None:
        return dirs + [Path(p).expanduser() for p in listed.split(os.pathsep) if p]
    config = env.get("XDG_CONFIG_HOME") or str(Path(env.get("HOME", "~")) / ".config")
    return [*dirs, Path(config).expanduser() / "holon" / "skills"]


def workspace_skills(workspace: Path) -> list[Path]:
    """Every skill directory of the workspace layer, by name."""
    root = workspace / WORKSPACE_SKILLS
    if root.is_symlink() or not root.is_dir():
        return []
    found = []
    for entry in sorted(root.iterdir()):
        if entry.is_dir() and not entry.is_symlink():
            if not (entry / "SKILL.md").is_file():
                raise SkillError(
                    f"{entry} has no SKILL.md (workspace skill layer)",
                    hint=f"every directory in {WORKSPACE_SKILLS} is a skill; add SKILL.md or "
                    "move the directory out",
                )
            found.append(entry)
    return found


def _library(env: Mapping[str, str], input_dir: Path) -> list[tuple[Source, Path]]:
    """Where a bare name is looked up, highest layer last: builtin, then user dirs."""
    user = [("user", d) for d in reversed(user_dirs(env, input_dir))]
    return [("builtin", builtin_skills_dir()), *user]  # type: ignore[list-item]


def resolve(
    spec_refs: Iterable[str],
    flag_dirs: Iterable[Path],
    input_dir: Path,
    *,
    workspace: Path | None = None,
    env: Mapping[str, str] | None = None,
    scratch: Path | None = None,
) -> Resolution:
    """Load and rank every skill the run uses; raises :class:`SkillError` naming the skill."""
    env = os.environ if env is None else env
    candidates: dict[Source, list[ResolvedSkill]] = {layer: [] for layer in LAYERS}  # type: ignore[misc]
    notes: list[str] = []
    ws_skills = (
        [load_skill(p, "workspace") for p in workspace_skills(workspace)] if workspace else []
    )
    candidates["workspace"] = ws_skills
    ws_names = {s.name for s in ws_skills}
    for ref in spec_refs:
        skill = spec_ref(ref, input_dir, env, scratch, ws_names, notes)
        if skill is not None:
            candidates[skill.source].append(skill)
    candidates["flag"] = [load_skill(Path(d), "flag") for d in flag_dirs]
    chosen: dict[str, ResolvedSkill] = {}
    for layer in LAYERS:
        seen: set[str] = set()
        for skill in candidates[layer]:  # type: ignore[index]
            if skill.name in seen:
                raise SkillError(
                    f"two {layer} skills are named {skill.name!r}",
                    hint="skill names must be unique within a layer; rename or drop one",
                )
            seen.add(skill.name)
            if skill.name in chosen:
                low = chosen[skill.name]
                notes.append(
                    f"skill {skill.name}: {layer} ({skill.origin}) replaces "
                    f"{low.source} ({low.origin})"
                )
            chosen[skill.name] = skill
    ordered = sorted(chosen.values(), key=lambda s: (LAYERS.index(s.source), s.name))
    return Resolution(ordered, notes)


def resolve_skills(
    spec_refs: Iterable[str],
    flag_dirs: Iterable[Path],
    input_dir: Path,
    *,
    workspace: Path | None = None,
    env: Mapping[str, str] | None = None,
    scratch: Path | None = None,
) -> tuple[list[ResolvedSkill], list[str]]:
    """The run's skills in deterministic order, plus notes (the layers: :func:`resolve`)."""
    found = resolve(spec_refs, flag_dirs, input_dir, workspace=workspace, env=env, scratch=scratch)
    return found.skills, found.notes


def spec_ref(  # noqa: PLR0917
    ref: str,
    input_dir: Path,
    env: Mapping[str, str],
    scratch: Path | None,
    ws_names: set[str],
    notes: list[str],
) -> ResolvedSkill | None:
    """One ``metadata.skills`` entry; None when it names a workspace skill (already used)."""
    if not isinstance(ref, str) or not ref.strip():
        raise SkillError(f"spec skill reference {clip(ref)} is empty", hint="name a skill")
    if PIN in ref:
        from holon_core.skill.archive import materialize

        where = scratch or Path(tempfile.mkdtemp(prefix="holon-skill-"))
        path = materialize(ref, base=input_dir, dest=where, cache=input_dir / ARCHIVE_COPY)
        return load_skill(path, "spec", origin=ref)
    match = STORE_REF.match(ref)
    if match:
        from holon_core.skill.store import lookup

        return lookup(match[1], match[2], env, input_dir)
    as_path = Path(ref).expanduser()
    if as_path.is_absolute() or "/" in ref:
        path = as_path if as_path.is_absolute() else input_dir / as_path
        return load_skill(path, "spec", origin=str(path))
    for base in (input_dir, input_dir / "skills", input_dir / "context"):
        if (base / ref / "SKILL.md").is_file():
            return load_skill(base / ref, "spec", origin=str(base / ref))
    if ref in ws_names:
        return None
    return _from_library(ref, env, input_dir, notes)


def _from_library(
    ref: str, env: Mapping[str, str], input_dir: Path, notes: list[str]
) -> ResolvedSkill:
    found = [(layer, base / ref) for layer, base in _library(env, input_dir)]
    found = [(layer, p) for layer, p in found if (p / "SKILL.md").is_file()]
    if not found:
        from holon_core.skill.store import entries

        stored = [f"{name}@{version}" for name, version, _ in entries(env) if name == ref]
        if stored:  # a bare name never reaches the store: a spec pins a stored version
            raise SkillError(
                f"skill {ref!r} not found (spec metadata.skills)",
                hint=f"the store has {', '.join(stored)}: name it so, e.g. {stored[-1]}",
            )
        raise SkillError(
            f"skill {ref!r} not found (spec metadata.skills)",
            hint=f"add it to .holon/skills/ in the workspace or to a user skill dir, pass "
            f"--skill DIR, or use one of: {name_list(available(env, input_dir)) or 'none'}",
        )
    layer, path = found[-1]
    for low_layer, low in found[:-1]:
        notes.append(f"skill {ref}: {layer} ({path}) shadows {low_layer} ({low})")
    return load_skill(path, layer, origin=str(path))


def available(env: Mapping[str, str], input_dir: Path | None = None) -> list[str]:
    """Names the builtin and user layers offer: the first package of a name in lookup order,
    if it passes the validator (a hint never suggests a skill that would be refused)."""
    found: dict[str, Path] = {}
    for base in [*user_dirs(env, input_dir), builtin_skills_dir()]:
        if base.is_dir():
            for path in base.iterdir():
                if (path / "SKILL.md").is_file():
                    found.setdefault(path.name, path)
    return sorted(name for name, path in found.items() if _loads(path))


def _loads(path: Path) -> bool:
    try:
        load_skill(path, "user")
    except SkillError:
        return False
    return True


def describe(skill: ResolvedSkill) -> dict[str, str | None]:
    """What the execution log and ``holon skills`` say about one resolved skill."""
    return {
        "name": skill.name,
        "version": skill.version,
        "layer": skill.source,
        "origin": skill.origin,
        "sha256": skill.sha256,
    }
