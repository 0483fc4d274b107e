"""Host-only skill sources the spec names, copied into the input dir for the agent.

The agent runs with a run-local ``HOME`` (and perhaps in a container), so it cannot see the
user's skill dirs, the store or the network the way the user's shell does. For each
``metadata.skills`` entry the runner copies what only the host has: the user-layer directory
of a bare name, the store entry of ``name@version``, the verified bytes of a pinned archive.
The agent then resolves and validates everything itself (one validator, ``skill/package.py``); the
names of these copies are shared with it through ``skill/layers.py``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from holon_core.runner.copy_in import Budget, copy_file, copy_tree
from holon_core.skill.layers import ARCHIVE_COPY, PIN, STORE_COPY, STORE_REF, USER_COPY, user_dirs


def copy_host_skills(
    refs: Iterable[str], spec_dir: Path, input_dir: Path, env: Mapping[str, str], budget: Budget
) -> None:
    for ref in refs:
        if PIN in ref:
            _copy_archive(ref, spec_dir, input_dir / ARCHIVE_COPY)
        elif match := STORE_REF.match(ref):
            _copy_store_entry(match[1], match[2], input_dir / STORE_COPY, env, budget)
        elif "/" not in ref and not Path(ref).is_absolute():
            _copy_user_skill(ref, input_dir / USER_COPY, env, budget)


def _copy_archive(ref: str, spec_dir: Path, dest: Path) -> None:
    """Fetched and checked here; the agent checks the bytes again before unpacking."""
    from holon_core.skill.archive import fetch, split_pin, verify

    location, digest = split_pin(ref)
    data = fetch(location, spec_dir)
    verify(data, digest, location)
    dest.mkdir(parents=True, exist_ok=True)
    (dest / digest).write_bytes(data)


def _copy_store_entry(
    name: str, version: str, dest: Path, env: Mapping[str, str], budget: Budget
) -> None:
    from holon_core.skill.store import store_root

    source = store_root(env) / name / version
    if (source / "SKILL.md").is_file():
        copy_tree(source, dest / name / version, budget, within=source)
        pin = source.with_name(version + ".sha256")
        if pin.is_file():
            copy_file(pin, dest / name / pin.name, budget)


def _copy_user_skill(name: str, dest: Path, env: Mapping[str, str], budget: Budget) -> None:
    """The first user dir holding ``name`` (the one that wins), if any."""
    for base in user_dirs(env):
        source = base / name
        if (source / "SKILL.md").is_file():
            copy_tree(source, dest / name, budget, within=source)
            return
