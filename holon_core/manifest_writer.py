"""Write ``manifest.json``: validated against the published model, redacted, atomic.

A manifest a skill or the engine wrote during the run is merged, not overwritten: its extra
top-level keys and metadata keys survive unless holon owns the key. ``artifacts`` is the
inventory of the output directory (files this run produced), plus whatever the skill
declared that exists.
"""

from __future__ import annotations

import json
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from holon_core.files import HeldDir, walk_entries
from holon_core.models.manifest import Manifest, ManifestMetadata
from holon_core.redact import Redactor

MANIFEST = "manifest.json"
_HOLON_OWNED = {"status", "outcome", "duration", "artifacts", "metadata", "error"}


def inventory(output: Path, exclude: Iterable[str] = ()) -> list[str]:
    """Every file under ``output`` (relative, sorted), minus ``exclude``.

    Nothing is followed out of ``output``: directories are walked without following links,
    and a symlink is listed only when it resolves to a regular file inside ``output`` (a
    link the engine pointed at /etc or another dir is not an artifact of the run).
    """
    skip = set(exclude)
    found = {MANIFEST}
    root = output.resolve()
    for path in walk_entries(output):
        rel = path.relative_to(output).as_posix()
        if rel not in skip and not rel.startswith(".holon-") and _listable(path, root):
            found.add(rel)
    return sorted(found)


def _listable(path: Path, root: Path) -> bool:
    """A regular file, or a link to a regular file that stays inside ``root``."""
    try:
        st = path.lstat()
        if stat.S_ISREG(st.st_mode):
            return True
        if not stat.S_ISLNK(st.st_mode):
            return False
        target = path.resolve()
        return target.is_relative_to(root) and target.is_file()
    except (OSError, RuntimeError):
        return False


def read_skill_manifest(output: Path) -> dict[str, Any] | None:
    """A manifest.json some skill wrote during the run, if it is a JSON object."""
    path = output / MANIFEST
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def merge_skill_manifest(manifest: dict[str, Any], skill: dict[str, Any] | None) -> dict[str, Any]:
    if not skill:
        return manifest
    merged = {k: v for k, v in skill.items() if k not in _HOLON_OWNED}
    merged.update(manifest)
    skill_meta = skill.get("metadata")
    if isinstance(skill_meta, dict):
        owned = set(ManifestMetadata.model_fields)
        extra = {k: v for k, v in skill_meta.items() if k not in owned}
        merged["metadata"] = {**extra, **manifest["metadata"]}
    declared = skill.get("artifacts")
    if isinstance(declared, list):
        names = [a if isinstance(a, str) else a.get("path") for a in declared]
        merged["artifacts"] = sorted(
            set(manifest["artifacts"]) | {n for n in names if isinstance(n, str)}
        )
    return merged


def write_manifest(output: HeldDir, data: dict[str, Any], redact: Redactor) -> Manifest:
    """Validate, redact and atomically write (through the held dir); returns the model."""
    manifest = Manifest.model_validate(data)
    output.write_atomic(MANIFEST, redact(manifest.to_json()))
    return manifest
