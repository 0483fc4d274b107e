"""Read back a ``manifest.json`` that a skill or the engine wrote during the run.

The engine is untrusted: its manifest may be huge, nested past what ``json`` can recurse,
or declare artifacts outside the output directory. Such a manifest is refused or trimmed
with a warning that lands in ``metadata.warnings``; it never fails the run.
"""

from __future__ import annotations

import json
from pathlib import Path, PurePosixPath
from typing import Any

from holon_core.record.manifest_shape import SHAPE
from holon_core.untrusted.files import read_regular
from holon_core.untrusted.quoting import clip

MANIFEST = "manifest.json"
#: Larger engine manifests are ignored (holon's own is a few KiB).
MAX_ENGINE_MANIFEST = 1024 * 1024
#: Deeper engine manifests are ignored.
MAX_ENGINE_DEPTH = 64
#: How many dropped artifact names a warning quotes.
_QUOTED = 10
_HOLON_OWNED = {"status", "outcome", "duration", "artifacts", "metadata", "error"}


class EngineManifest(dict[str, Any]):
    """The engine's manifest as a dict, plus warnings about what holon refused in it."""

    def __init__(
        self, data: dict[str, Any] | None = None, warnings: list[str] | None = None
    ) -> None:
        super().__init__(data or {})
        self.warnings: list[str] = list(warnings or [])


def read_skill_manifest(output: Path) -> EngineManifest | None:
    """The manifest.json written during the run: None when absent, refused ones with a warning."""
    raw = read_regular(output / MANIFEST, MAX_ENGINE_MANIFEST)
    if raw is None:
        return None  # absent, or a link/FIFO/directory holon will replace anyway
    if len(raw) > MAX_ENGINE_MANIFEST:
        return _refused(f"it is over {MAX_ENGINE_MANIFEST} bytes")
    try:
        data = json.loads(raw.decode("utf-8"))
    except RecursionError:
        return _refused(f"it is nested deeper than {MAX_ENGINE_DEPTH} levels")
    except ValueError:
        return None  # not JSON: holon's manifest replaces it, as before
    if not isinstance(data, dict):
        return None
    if _depth(data) > MAX_ENGINE_DEPTH:
        return _refused(f"it is nested deeper than {MAX_ENGINE_DEPTH} levels")
    return EngineManifest(data)


def merge_skill_manifest(manifest: dict[str, Any], skill: dict[str, Any] | None) -> dict[str, Any]:
    """holon's manifest with the engine's extra keys and declared artifacts folded in."""
    if skill is None:
        return manifest
    warnings = list(getattr(skill, "warnings", []))
    merged = {k: v for k, v in skill.items() if k not in _HOLON_OWNED}
    merged.update(manifest)
    meta = dict(manifest["metadata"])
    skill_meta = skill.get("metadata")
    if isinstance(skill_meta, dict):
        owned = set(SHAPE["metadata"][1]) | {"warnings"}
        meta = {**{k: v for k, v in skill_meta.items() if k not in owned}, **meta}
    declared = skill.get("artifacts")
    if isinstance(declared, list):
        names = [a if isinstance(a, str) else a.get("path") for a in declared if _named(a)]
        kept = {n for n in names if isinstance(n, str) and _inside(n)}
        dropped = [n for n in names if isinstance(n, str) and n not in kept]
        if dropped:
            quoted = ", ".join(clip(n) for n in dropped[:_QUOTED])
            more = f" and {len(dropped) - _QUOTED} more" if len(dropped) > _QUOTED else ""
            warnings.append(
                f"manifest.json written during the run declares artifacts outside the output "
                f"directory; dropped: {quoted}{more}"
            )
        merged["artifacts"] = sorted(set(manifest["artifacts"]) | kept)
    if warnings:
        meta["warnings"] = [*meta.get("warnings", []), *warnings]
    merged["metadata"] = meta
    return merged


def _refused(why: str) -> EngineManifest:
    return EngineManifest(warnings=[f"manifest.json written during the run was ignored: {why}"])


def _named(entry: object) -> bool:
    return isinstance(entry, str) or (isinstance(entry, dict) and "path" in entry)


def _inside(name: str) -> bool:
    """A relative path that stays inside the output directory, by its text alone."""
    if not name or "\x00" in name or "\\" in name:
        return False
    path = PurePosixPath(name)
    return not path.is_absolute() and ".." not in path.parts and path.parts != ()


def _depth(data: object) -> int:
    """Nesting depth, without recursion (the data may be as deep as ``json`` allows)."""
    deepest = 0
    stack: list[tuple[object, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            children: list[object] = list(value.values())
        elif isinstance(value, list):
            children = value
        else:
            continue
        deepest = max(deepest, depth)
        if deepest > MAX_ENGINE_DEPTH:
            return deepest
        stack.extend((child, depth + 1) for child in children)
    return deepest
