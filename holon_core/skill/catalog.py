"""Every skill holon can find, for ``holon skills list`` (docs/skills.md, "Listing skills").

One row per package in each place a run looks: the builtin and user libraries, the store, the
workspace layer, the spec's entries and ``--skill`` dirs. Each row is checked by the run's own
validator (:func:`holon_core.skill.package.load_skill`), so an invalid one carries the refusal a run
would print; a name that a higher layer also holds is marked ``shadowed_by`` that layer. What
a run would stage, and whether it would be refused, comes from the run's own resolver
(:func:`holon_core.skill.layers.resolve`), never from a second reading of the rules.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from holon_core.errors import SkillError
from holon_core.skill.layers import WORKSPACE_SKILLS, resolve, spec_ref, user_dirs
from holon_core.skill.package import ResolvedSkill, Source, builtin_skills_dir, load_skill
from holon_core.skill.store import entries, lookup

#: Where a row was found, in listing order; ``store`` entries enter a run through the spec.
PLACES = ("builtin", "user", "store", "workspace", "spec", "flag")
#: Precedence for shadowing, low to high (layers.py); the store shadows nothing itself.
RANK = {"builtin": 0, "user": 1, "workspace": 2, "spec": 3, "flag": 4}


@dataclass
class Row:
    """One package, where it was found, and what a run would make of it."""

    name: str
    layer: str
    origin: str
    path: Path | None  # None: a spec entry that names nothing found
    skill: ResolvedSkill | None = None  # None: refused by the validator (``error``)
    error: str | None = None
    hint: str | None = None
    shadowed_by: str | None = None
    staged: bool = False

    @property
    def status(self) -> str:
        if self.skill is None:
            return "invalid"
        if self.staged:
            return "staged"
        return "shadowed" if self.shadowed_by else "available"

    def to_json(self) -> dict[str, Any]:
        """The documented row of ``holon skills list --json`` (docs/skills.md)."""
        skill = self.skill
        return {
            "name": self.name,
            "version": skill.version if skill else None,
            "layer": self.layer,
            "origin": self.origin,
            "path": None if self.path is None else str(self.path),
            "sha256": skill.sha256 if skill else None,
            "description": skill.description if skill else None,
            "valid": skill is not None,
            "error": self.error,
            "hint": self.hint,
            "status": self.status,
            "shadowed_by": self.shadowed_by,
            "staged": self.staged,
            "warnings": list(skill.warnings) if skill else [],
        }


@dataclass
class Catalog:
    rows: list[Row] = field(default_factory=list)
    #: What a run with these inputs stages, in its order (empty when it would be refused).
    staged: list[Row] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    refusal: SkillError | None = None


def build_catalog(
    refs: Sequence[str],
    flags: Sequence[Path],
    input_dir: Path,
    *,
    workspace: Path,
    env: Mapping[str, str],
    scratch: Path,
) -> Catalog:
    """Rows for every skill found, and the run's own resolution of these inputs."""
    found = Catalog()
    try:
        resolution = resolve(refs, flags, input_dir, workspace=workspace, env=env, scratch=scratch)
    except SkillError as exc:
        found.refusal = exc
    else:
        found.notes = resolution.notes
        found.staged = [_loaded(s, s.source, staged=True) for s in resolution.skills]
    rows = _library(env) + _store(env) + _workspace(workspace)
    done = {row.origin: row.skill for row in found.staged if row.skill is not None}
    rows += _spec_rows(refs, input_dir, env, scratch, rows, done)
    rows += [_validated(path, "flag") for path in flags]
    staged = {row.path for row in found.staged}
    for row in rows:
        row.staged = row.path is not None and row.path in staged
    _mark_shadowed(rows)
    found.rows = sorted(rows, key=lambda row: PLACES.index(row.layer))  # stable: name order kept
    return found


def _loaded(skill: ResolvedSkill, layer: str, *, staged: bool = False) -> Row:
    return Row(skill.name, layer, skill.origin, skill.path, skill, staged=staged)


def _validated(path: Path, layer: Source) -> Row:
    """A package found at ``path``, checked as the run checks one of that layer."""
    return _checked(path, layer, str(path), partial(load_skill, path, layer))


def _checked(path: Path, layer: str, origin: str, load: Callable[[], ResolvedSkill]) -> Row:
    """The validator's verdict on one package: loaded, or its refusal and fix."""
    try:
        return _loaded(load(), layer)
    except SkillError as exc:
        return Row(path.name, layer, origin, path.resolve(), error=exc.message, hint=exc.hint)


def _library(env: Mapping[str, str]) -> list[Row]:
    """The builtin dir, then each user dir in lookup order (the first one wins)."""
    rows = []
    places: list[tuple[Source, Path]] = [("builtin", builtin_skills_dir())]
    places += [("user", d) for d in user_dirs(env)]
    for layer, base in places:
        if not base.is_dir():
            continue
        for path in sorted(p for p in base.iterdir() if (p / "SKILL.md").is_file()):
            rows.append(_validated(path, layer))
    return rows


def _store(env: Mapping[str, str]) -> list[Row]:
    rows = []
    for name, version, path in entries(env):
        ref = f"{name}@{version}"
        row = _checked(path, "store", f"store:{ref}", partial(lookup, name, version, env))
        row.name, row.layer = name, "store"
        rows.append(row)
    return rows


def _workspace(workspace: Path) -> list[Row]:
    """Every directory of ``.holon/skills/``: each must be a skill (layers.py)."""
    root = workspace / WORKSPACE_SKILLS
    if root.is_symlink() or not root.is_dir():
        return []
    dirs = sorted(p for p in root.iterdir() if p.is_dir() and not p.is_symlink())
    return [_validated(p, "workspace") for p in dirs]


def _spec_rows(  # noqa: PLR0917
    refs: Sequence[str],
    input_dir: Path,
    env: Mapping[str, str],
    scratch: Path,
    known: list[Row],
    resolved: Mapping[str, ResolvedSkill],
) -> list[Row]:
    """The spec's entries that are packages of their own (its skills, paths, archives); a
    bare name of the library or the workspace is already a row, as is a store entry.
    ``resolved``: the run's skills by origin (a pinned archive is not fetched twice)."""
    paths = {row.path for row in known}
    names = {row.name for row in known if row.layer != "store"}
    ws_names = {row.name for row in known if row.layer == "workspace"}
    rows: list[Row] = []
    for ref in refs:
        try:
            skill = resolved.get(ref) or spec_ref(ref, input_dir, env, scratch, ws_names, [])
        except SkillError as exc:
            if ref not in names:  # a library skill's refusal is on its own row
                rows.append(Row(ref, "spec", ref, None, error=exc.message, hint=exc.hint))
            continue
        if skill is not None and skill.path not in paths:
            rows.append(_loaded(skill, "spec"))
            paths.add(skill.path)
    return rows


def _mark_shadowed(rows: list[Row]) -> None:
    """Each name resolves to its highest layer (the first user dir among user dirs); every
    other row of that name is shadowed by it. A store entry only competes when staged."""
    winners: dict[str, Row] = {}
    for row in rows:
        rank = _rank(row)
        if rank is None:
            continue
        best = winners.get(row.name)
        if best is None or rank > (_rank(best) or 0):
            winners[row.name] = row
    for row in rows:
        best = winners.get(row.name)
        if best is not None and best is not row and _rank(row) is not None:
            row.shadowed_by = "spec" if best.layer == "store" else best.layer


def _rank(row: Row) -> int | None:
    if row.layer == "store":
        return RANK["spec"] if row.staged else None
    return RANK[row.layer]
