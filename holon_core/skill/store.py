"""The local skill store: immutable ``<name>/<version>/`` packages a spec pins as ``name@version``.

Lives in ``$XDG_DATA_HOME/holon/skills`` (else ``~/.local/share/holon/skills``). An entry is
written once, read-only, with its package digest beside it (``<version>.sha256``); adding the
same (name, version) again is a no-op when the digest matches and refused when it does not,
and a lookup re-checks the digest, so an entry changed behind holon's back is refused too.
"""

from __future__ import annotations

import json
import shutil
import stat
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from holon_core.errors import SkillError
from holon_core.skill.package import NOT_PACKAGED, ResolvedSkill, load_skill

COPY_NAME = "skill-store"  # the runner's copy of referenced entries, in the input dir


@dataclass(frozen=True)
class Added:
    skill: ResolvedSkill
    path: Path
    created: bool  # False: the same package was already there


def store_root(env: Mapping[str, str]) -> Path:
    data = env.get("XDG_DATA_HOME") or str(Path(env.get("HOME", "~")) / ".local" / "share")
    return Path(data).expanduser() / "holon" / "skills"


def lookup(
    name: str, version: str, env: Mapping[str, str], input_dir: Path | None = None
) -> ResolvedSkill:
    """The stored ``name@version``, its digest re-checked (the runner's copy first)."""
    roots = [input_dir / COPY_NAME] if input_dir is not None else []
    roots.append(store_root(env))
    for root in roots:
        path = root / name / version
        if (path / "SKILL.md").is_file():
            return _checked(path, f"{name}@{version}")
    raise SkillError(
        f"skill {name}@{version} is not in the store ({store_root(env)})",
        hint=f"add it with `holon skills add PATH` (versions there: {_versions(env, name)})",
    )


def _checked(path: Path, ref: str) -> ResolvedSkill:
    skill = load_skill(path, "spec", origin=f"store:{ref}", named_dir=False)
    pin = path.with_name(path.name + ".sha256")
    recorded = pin.read_text(encoding="utf-8").strip() if pin.is_file() else None
    if recorded != skill.sha256:
        raise SkillError(
            f"skill {ref}: the store entry changed since it was added (sha256 {skill.sha256}, "
            f"recorded {recorded})",
            hint=f"remove it (`holon skills remove {ref}`) and add it again",
        )
    if skill.version != ref.rsplit("@", 1)[1] or skill.name != ref.rsplit("@", 1)[0]:
        raise SkillError(f"skill {ref}: the store entry holds {skill.name}@{skill.version}")
    return skill


def _versions(env: Mapping[str, str], name: str) -> str:
    base = store_root(env) / name
    found = sorted(p.name for p in base.iterdir() if p.is_dir()) if base.is_dir() else []
    return ", ".join(found) or "none"


def add(ref: str, env: Mapping[str, str]) -> Added:
    """Add a skill directory or a pinned archive (``PATH|URL#sha256=HEX``)."""
    with tempfile.TemporaryDirectory(prefix="holon-skill-add-") as scratch:
        if "#sha256=" in ref:
            from holon_core.skill.archive import materialize

            source = materialize(ref, base=Path.cwd(), dest=Path(scratch))
        else:
            source = Path(ref).expanduser()
            if source.is_file():
                raise SkillError(
                    f"{source} is a file: an archive needs its pin",
                    hint=f"add {ref}#sha256=<hex> (sha256sum {ref} prints it)",
                )
        skill = load_skill(source, "spec", origin=ref)
        if skill.version is None:
            raise SkillError(
                f"skill {skill.name} has no version (store rule)",
                hint="add `version: 1.0.0` to its SKILL.md front matter",
            )
        root = store_root(env)
        target = root / skill.name / skill.version
        if target.exists():
            existing = _checked(target, f"{skill.name}@{skill.version}")
            if existing.sha256 != skill.sha256:
                raise SkillError(
                    f"skill {skill.name}@{skill.version} is already in the store with other "
                    f"content (stored sha256 {existing.sha256}, new {skill.sha256})",
                    hint="store entries are immutable: bump the version in SKILL.md",
                )
            return Added(existing, target, created=False)
        _install(skill, target)
    return Added(_checked(target, f"{skill.name}@{skill.version}"), target, created=True)


def _install(skill: ResolvedSkill, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".adding-", dir=target.parent))
    package = staging / "pkg"
    shutil.copytree(
        skill.path, package, symlinks=False, ignore=shutil.ignore_patterns(*NOT_PACKAGED)
    )
    package.replace(target)
    staging.rmdir()
    pin = target.with_name(target.name + ".sha256")
    pin.write_text(skill.sha256 + "\n", encoding="utf-8")
    record = {"source": skill.origin, "sha256": skill.sha256}
    target.with_name(target.name + ".json").write_text(json.dumps(record) + "\n")
    for path in [pin, *sorted(target.rglob("*"), reverse=True), target]:
        mode = stat.S_IMODE(path.lstat().st_mode)
        path.chmod((mode & ~0o222) | (0o111 if path.is_dir() else 0))


def remove(name: str, version: str | None, env: Mapping[str, str]) -> list[str]:
    """Remove one version, or every version of ``name``; the refs removed."""
    base = store_root(env) / name
    versions = [version] if version else _versions(env, name).split(", ")
    targets = [base / v for v in versions if (base / v).is_dir()]
    if not targets:
        ref = f"{name}@{version}" if version else name
        raise SkillError(f"skill {ref} is not in the store", hint="see `holon skills list`")
    for target in targets:
        for path in [target, *target.rglob("*")]:
            if path.is_dir() and not path.is_symlink():
                path.chmod(0o755)
        shutil.rmtree(target)
        for suffix in (".sha256", ".json"):
            target.with_name(target.name + suffix).unlink(missing_ok=True)
    if base.is_dir() and not any(base.iterdir()):
        base.rmdir()
    return [f"{name}@{t.name}" for t in targets]


def entries(env: Mapping[str, str]) -> list[tuple[str, str, Path]]:
    """Every (name, version, path) in the store, sorted."""
    root = store_root(env)
    if not root.is_dir():
        return []
    found = []
    for name_dir in sorted(root.iterdir()):
        if name_dir.is_dir():
            found += [(name_dir.name, v.name, v) for v in sorted(name_dir.iterdir()) if v.is_dir()]
    return found
