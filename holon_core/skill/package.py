"""Resolve and validate skills (a directory with ``SKILL.md``) before any adapter sees them.

Rules from the skills ADR: kebab-case names, ``SKILL.md`` at most 64 KiB, any single file
at most 256 KiB, a package at most 1 MiB (and :data:`MAX_FILES` files). A link inside a
package counts as the file it points to; a link out of it, or to a directory, is refused.
This is the one validator: the run, ``holon-agent --probe`` and ``holon skills validate``
all call :func:`load_skill`. Where skills come from and which one wins: ``layers.py``.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import yaml

from holon_core.errors import SkillError
from holon_core.untrusted import yaml_safe
from holon_core.untrusted.files import read_regular
from holon_core.untrusted.quoting import clip, shorten

NAME_RULE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
MAX_NAME = 64
MAX_DESCRIPTION = 1024
MAX_SKILL_MD = 64 * 1024
MAX_FILE = 256 * 1024
MAX_PACKAGE = 1024 * 1024
MAX_FILES = 1000
#: Precedence, low to high (the skills ADR: system < workspace/project < attached).
LAYERS: tuple[str, ...] = ("builtin", "user", "workspace", "spec", "flag")
#: Front matter keys holon or the Agent Skills format knows; others are warned about.
KNOWN_KEYS = frozenset(
    {"name", "description", "version", "license", "metadata", "requires", "artifacts"}
    | {"allowed-tools", "compatibility"}
)

Source = Literal["builtin", "user", "workspace", "spec", "flag"]


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
    #: Where it came from: its directory, an archive's path or URL, or ``store:NAME@VERSION``.
    origin: str = ""
    #: The package digest (:func:`package_digest`), hex.
    sha256: str = ""
    #: Non-fatal findings (unknown front matter keys).
    warnings: tuple[str, ...] = ()

    @property
    def layer(self) -> Source:
        """The precedence layer it came from (``source`` is its historical name)."""
        return self.source

    @property
    def files(self) -> list[Path]:
        return sorted(p for p in self.path.rglob("*") if p.is_file())


def builtin_skills_dir() -> Path:
    """Skills shipped in the wheel, or the repository's ``skills/`` in a source checkout."""
    package_dir = Path(__file__).resolve().parents[1]  # holon_core/
    shipped = package_dir / "_builtin_skills"
    return shipped if shipped.is_dir() else package_dir.parent / "skills"


def load_skill(
    path: Path, source: Source, origin: str | None = None, *, named_dir: bool = True
) -> ResolvedSkill:
    """Read and validate one skill directory; errors name the file and the fix.

    ``named_dir``: the directory must carry the skill's name (not so in the store, where it
    is the version).
    """
    if path.is_file():
        raise SkillError(
            f"skill {path} is a file, not a directory",
            hint=f"an archive needs its pin: {path}#sha256=<hex> (sha256sum {path} prints it)",
        )
    if not path.is_dir():
        what = "is not a directory" if os.path.lexists(path) else "does not exist"
        raise SkillError(f"skill {path} {what}", hint="pass a directory with SKILL.md")
    skill_md = path / "SKILL.md"
    if skill_md.is_symlink() or not skill_md.is_file():
        raise SkillError(f"{skill_md} is missing", hint="every skill needs a SKILL.md file")
    files = package_files(path)
    text = _read_text(skill_md)
    front, body = _split_front_matter(text, skill_md)
    name = front.get("name")
    description = front.get("description")
    if not isinstance(name, str) or not NAME_RULE.match(name) or len(name) > MAX_NAME:
        raise SkillError(
            f"{skill_md}: name {clip(name)} is invalid",
            hint=f"use lowercase letters, digits and single hyphens, at most {MAX_NAME} chars",
        )
    if named_dir and name != path.name:
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
    unknown = sorted(str(key) for key in front if key not in KNOWN_KEYS)
    warnings = tuple(
        f"skill {name}: unknown front matter key {clip(key, 60)} (ignored)" for key in unknown
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
        origin=origin or str(path),
        sha256=package_digest(files),
        warnings=warnings,
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


#: Directory names that are never part of a skill package.
NOT_PACKAGED = frozenset({"__pycache__"})


def package_files(root: Path) -> dict[str, Path]:
    """Every file of the package by relative POSIX path, checked against the caps.

    A link that resolves to a regular file inside the package stands for that file; a link
    out of the package, to a directory or to nothing is refused, as is any special file.
    """
    real_root = root.resolve()
    files: dict[str, Path] = {}
    total = 0
    for dirpath, dirnames, filenames in os.walk(root):
        # Python's bytecode cache appears when a skill's script ran from its source dir; it is
        # not part of the package (it would change the digest and be staged).
        dirnames[:] = sorted(d for d in dirnames if d not in NOT_PACKAGED)
        for name in sorted([*dirnames, *filenames]):
            path = Path(dirpath) / name
            rel = path.relative_to(root).as_posix()
            st = path.lstat()
            if stat.S_ISDIR(st.st_mode):
                continue
            if any(ch in rel for ch in "\n\r\\"):
                raise SkillError(
                    f"{path}: file names in a skill may not hold newlines or backslashes",
                    hint="rename the file",
                )
            if stat.S_ISLNK(st.st_mode):
                path, st = _inside_link(path, real_root)
            if not stat.S_ISREG(st.st_mode):
                raise SkillError(
                    f"{path} is not a regular file", hint="a skill holds files and directories"
                )
            limit = MAX_SKILL_MD if rel == "SKILL.md" else MAX_FILE
            if st.st_size > limit:
                raise SkillError(
                    f"{path} is {st.st_size} bytes (file size cap)",
                    hint=f"the limit is {limit} bytes",
                )
            total += st.st_size
            files[rel] = path
            if total > MAX_PACKAGE or len(files) > MAX_FILES:
                raise SkillError(
                    f"skill {root} is over the package cap ({total} bytes, {len(files)} files)",
                    hint=f"the limits are {MAX_PACKAGE} bytes and {MAX_FILES} files",
                )
    return files


def _inside_link(link: Path, real_root: Path) -> tuple[Path, os.stat_result]:
    target = link.resolve()
    if not target.is_relative_to(real_root):
        raise SkillError(
            f"{link} links out of its skill (to {clip(str(target))})",
            hint="skills are copied; put the file itself in the skill",
        )
    if not target.is_file():
        raise SkillError(
            f"{link} links to a directory or to nothing",
            hint="only links to files inside the skill are allowed",
        )
    return target, target.stat()


def package_digest(files: Mapping[str, Path]) -> str:
    """sha256 over ``"<sha256 of file>  <relative path>\\n"`` for each file, sorted by path.

    The same bytes as ``find -L . -type f -printf '%P\\n' | LC_ALL=C sort | xargs -d '\\n'
    sha256sum | sha256sum`` run inside the skill (docs/skills.md).
    """
    import hashlib  # here: OpenSSL's load is CPU a probe without skills does not spend

    outer = hashlib.sha256()
    for rel in sorted(files):
        inner = hashlib.sha256(files[rel].read_bytes()).hexdigest()
        outer.update(f"{inner}  {rel}\n".encode())
    return outer.hexdigest()
