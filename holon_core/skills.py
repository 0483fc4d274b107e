"""Resolve and validate skills (a directory with ``SKILL.md``) before any adapter sees them.

Rules from the skills ADR: kebab-case names, ``SKILL.md`` at most 64 KiB, any single file
at most 256 KiB, a package at most 1 MiB. Precedence (low to high): builtin, spec, flag;
a higher layer replaces a lower one with a logged note, a clash inside one layer is an
error. The final order is deterministic: by layer, then by name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import yaml

from holon_core import yaml_safe
from holon_core.errors import SkillError
from holon_core.files import read_regular
from holon_core.quoting import clip, shorten

NAME_RULE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
MAX_NAME = 64
MAX_DESCRIPTION = 1024
MAX_SKILL_MD = 64 * 1024
MAX_FILE = 256 * 1024
MAX_PACKAGE = 1024 * 1024
LAYERS: tuple[str, ...] = ("builtin", "spec", "flag")

Source = Literal["builtin", "spec", "flag"]


@dataclass(frozen=True, slots=True)
class ResolvedSkill:
    name: str
    description: str
    path: Path
    source: Source
    body: str
    #: Front matter ``version`` (optional).
    version: str | None = None
    #: Front matter ``requires: {env: [...]}``: variables the skill needs in the engine's env.
    requires_env: tuple[str, ...] = ()
    #: Front matter ``artifacts: [...]``: files (relative to the output dir) the skill writes.
    artifacts: tuple[str, ...] = ()

    @property
    def files(self) -> list[Path]:
        return sorted(p for p in self.path.rglob("*") if p.is_file())


def builtin_skills_dir() -> Path:
    """Skills shipped in the wheel, or the repository's ``skills/`` in a source checkout."""
    package_dir = Path(__file__).resolve().parent
    shipped = package_dir / "_builtin_skills"
    return shipped if shipped.is_dir() else package_dir.parent / "skills"


def load_skill(path: Path, source: Source) -> ResolvedSkill:
    """Read and validate one skill directory; errors name the file and the fix."""
    if not path.is_dir():
        raise SkillError(f"skill {path} is not a directory", hint="pass a directory with SKILL.md")
    skill_md = path / "SKILL.md"
    if not skill_md.is_file():
        raise SkillError(f"{skill_md} is missing", hint="every skill needs a SKILL.md")
    _check_sizes(path, skill_md)
    text = _read_text(skill_md)
    front, body = _split_front_matter(text, skill_md)
    name = front.get("name")
    description = front.get("description")
    if not isinstance(name, str) or not NAME_RULE.match(name) or len(name) > MAX_NAME:
        raise SkillError(
            f"{skill_md}: name {clip(name)} is invalid",
            hint=f"use lowercase letters, digits and single hyphens, at most {MAX_NAME} chars",
        )
    if name != path.name:
        raise SkillError(
            f"{skill_md}: name {name!r} differs from its directory {clip(path.name)}",
            hint="engines discover skills by directory name; rename one to match",
        )
    if not isinstance(description, str) or not description.strip():
        raise SkillError(f"{skill_md}: description is missing", hint="add description: ...")
    if len(description) > MAX_DESCRIPTION:
        raise SkillError(
            f"{skill_md}: description is {len(description)} chars",
            hint=f"keep it under {MAX_DESCRIPTION}",
        )
    return ResolvedSkill(
        name,
        description.strip(),
        path.resolve(),
        source,
        body,
        version=_version(front, skill_md),
        requires_env=_required_env(front, skill_md),
        artifacts=_artifacts(front, skill_md),
    )


ENV_NAME_RULE = re.compile(r"^[A-Z_][A-Z0-9_]*$")


def _version(front: dict[str, object], skill_md: Path) -> str | None:
    version = front.get("version")
    if version is None:
        return None
    if not isinstance(version, str | int | float) or isinstance(version, bool):
        raise SkillError(f"{skill_md}: version {clip(version)} is invalid", hint="use e.g. 1.2.0")
    text = str(version)
    if not re.fullmatch(r"[0-9A-Za-z][0-9A-Za-z.+-]{0,63}", text):
        raise SkillError(f"{skill_md}: version {clip(text)} is invalid", hint="use e.g. 1.2.0")
    return text


def _string_list(value: object, skill_md: Path, key: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise SkillError(f"{skill_md}: {key} must be a list of strings", hint=f"{key}: [A, B]")
    return list(value)


def _required_env(front: dict[str, object], skill_md: Path) -> tuple[str, ...]:
    requires = front.get("requires")
    if requires is None:
        return ()
    if not isinstance(requires, dict):
        raise SkillError(f"{skill_md}: requires must be a mapping", hint="requires: {env: [NAME]}")
    names = _string_list(requires.get("env"), skill_md, "requires.env")
    for name in names:
        if not ENV_NAME_RULE.match(name):
            raise SkillError(
                f"{skill_md}: requires.env name {clip(name)} is invalid",
                hint="use upper-case letters, digits and underscores",
            )
    return tuple(dict.fromkeys(names))


def _artifacts(front: dict[str, object], skill_md: Path) -> tuple[str, ...]:
    paths = _string_list(front.get("artifacts"), skill_md, "artifacts")
    for rel in paths:
        parts = Path(rel).parts
        if not rel or Path(rel).is_absolute() or ".." in parts:
            raise SkillError(
                f"{skill_md}: artifact path {clip(rel)} leaves the output dir",
                hint="list paths relative to the output dir, without ..",
            )
    return tuple(dict.fromkeys(paths))


def _read_text(skill_md: Path) -> str:
    """The checked file, read so that one swapped for a link or a FIFO since cannot hang us."""
    raw = read_regular(skill_md, MAX_SKILL_MD)
    if raw is None or len(raw) > MAX_SKILL_MD:
        raise SkillError(
            f"{skill_md} cannot be read as a regular file of at most {MAX_SKILL_MD} bytes",
            hint="make SKILL.md a plain file (not a link, FIFO or device)",
        )
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SkillError(
            f"{skill_md} is not UTF-8 text (byte {exc.start})", hint="save SKILL.md as UTF-8"
        ) from None


def _split_front_matter(text: str, where: Path) -> tuple[dict[str, object], str]:
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        raise SkillError(f"{where}: no YAML front matter", hint="start the file with --- lines")
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        raise SkillError(f"{where}: front matter is not closed", hint="end it with ---") from None
    try:
        data = yaml_safe.load("\n".join(lines[1:end])) or {}
    except yaml.YAMLError as exc:
        problem = shorten(str(exc), 300)
        raise SkillError(
            f"{where}: front matter is not valid YAML: {problem}",
            hint="fix the YAML between the --- lines (no deep nesting or alias expansion)",
        ) from None
    if not isinstance(data, dict):
        raise SkillError(f"{where}: front matter must be a mapping")
    return data, "\n".join(lines[end + 1 :]).lstrip("\n")


def _check_sizes(path: Path, skill_md: Path) -> None:
    total = 0
    for file in path.rglob("*"):
        if file.is_symlink():
            raise SkillError(f"{file} is a symlink", hint="skills are copied; use real files")
        if not file.is_file():
            continue
        size = file.stat().st_size
        limit = MAX_SKILL_MD if file == skill_md else MAX_FILE
        if size > limit:
            raise SkillError(f"{file} is {size} bytes", hint=f"the limit is {limit} bytes")
        total += size
    if total > MAX_PACKAGE:
        raise SkillError(f"skill {path} is {total} bytes", hint=f"the limit is {MAX_PACKAGE}")


def find_named_skill(ref: str, search_dirs: Iterable[Path]) -> Path:
    dirs = list(search_dirs)
    for base in dirs:
        candidate = base / ref
        if (candidate / "SKILL.md").is_file():
            return candidate
    available = sorted(
        p.name
        for base in dirs
        if base.is_dir()
        for p in base.iterdir()
        if (p / "SKILL.md").exists()
    )
    raise SkillError(
        f"skill {ref!r} not found",
        hint=f"pass --skill DIR, or use one of: {', '.join(available) or 'none installed'}",
    )


def resolve_skills(
    spec_refs: Iterable[str], flag_dirs: Iterable[Path], input_dir: Path
) -> tuple[list[ResolvedSkill], list[str]]:
    """The run's skills in deterministic order, plus notes about overridden duplicates."""
    chosen: dict[str, ResolvedSkill] = {}
    notes: list[str] = []
    builtin = builtin_skills_dir()
    layers: list[tuple[Source, list[Path]]] = [
        ("spec", [_spec_ref_path(ref, input_dir, builtin) for ref in spec_refs]),
        ("flag", [Path(d) for d in flag_dirs]),
    ]
    for source, paths in layers:
        in_layer: set[str] = set()
        for path in paths:
            skill = load_skill(path, source)
            if skill.name in in_layer:
                raise SkillError(
                    f"two {source} skills are named {skill.name!r}",
                    hint="skill names must be unique; rename or drop one",
                )
            in_layer.add(skill.name)
            if skill.name in chosen:
                notes.append(
                    f"skill {skill.name}: {source} ({skill.path}) replaces "
                    f"{chosen[skill.name].source} ({chosen[skill.name].path})"
                )
            chosen[skill.name] = skill
    ordered = sorted(chosen.values(), key=lambda s: (LAYERS.index(s.source), s.name))
    return ordered, notes


def _spec_ref_path(ref: str, input_dir: Path, builtin: Path) -> Path:
    as_path = Path(ref).expanduser()
    if as_path.is_absolute():
        return as_path
    for base in (input_dir, input_dir / "skills", input_dir / "context"):
        if (base / ref / "SKILL.md").is_file():
            return base / ref
    return find_named_skill(ref, [builtin])
