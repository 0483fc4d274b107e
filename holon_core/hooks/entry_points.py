"""The entry points of one group, read straight from the installed distributions' files.

``importlib.metadata`` imports email, csv, zipfile and socket, and parses each plugin's whole
METADATA to name its distribution: about a fifth of ``holon-agent --probe``'s CPU time. On the
usual ``sys.path`` of directories the same answer, in the same order (``sys.path`` order, the
first distribution of a name wins), needs only ``os``. Anything unusual (a zip or an egg on
``sys.path``, a third-party distribution finder) takes ``importlib.metadata`` instead. Paths
stay strings (``os.listdir``, ``open``): a ``pathlib.Path`` per directory entry cost more than
the whole listing, and the probe lists every distribution on ``sys.path``.
"""

# string paths on purpose, see above
# ruff: noqa: PTH113, PTH118, PTH119, PTH123, PTH208

from __future__ import annotations

import importlib
import os
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass

_SEPARATORS = re.compile(r"[-_.]+")


@dataclass(frozen=True, slots=True)
class EntryPointRef:
    """One entry point and the distribution that declares it (name, version; None if unknown)."""

    name: str
    value: str
    dist_name: str | None = None
    dist_version: str | None = None

    def load(self) -> object:
        """Import ``module:attr.path`` (extras in brackets are ignored, as pip does)."""
        module, _, attr = self.value.split("[", 1)[0].partition(":")
        loaded: object = importlib.import_module(module.strip())
        for part in filter(None, attr.strip().split(".")):
            loaded = getattr(loaded, part)
        return loaded


def entry_points(group: str) -> list[EntryPointRef]:
    """Every entry point of ``group``, as ``importlib.metadata.entry_points(group=...)``."""
    dirs = _plain_path()
    if dirs is None:
        return _from_importlib(group)
    found: list[EntryPointRef] = []
    seen: set[str] = set()
    for info in _dist_infos(dirs):
        key = _normalize(os.path.basename(info).rpartition(".")[0].partition("-")[0])
        if key in seen:
            continue  # an earlier sys.path entry has this distribution
        seen.add(key)
        text = _read(os.path.join(info, "entry_points.txt"))
        if text is None or group not in text:
            continue
        pairs = list(_section(text, group))
        if pairs:
            name, version = _name_version(info)
            found += [EntryPointRef(n, v, name, version) for n, v in pairs]
    return found


def _plain_path() -> list[str] | None:
    """``sys.path`` as directories to list, or None when only importlib.metadata can answer."""
    from importlib.machinery import PathFinder

    for finder in sys.meta_path:
        if finder is not PathFinder and hasattr(finder, "find_distributions"):
            return None
    dirs = []
    for entry in sys.path:
        root = entry or "."
        if entry.lower().endswith(".egg") or os.path.isfile(root):
            return None
        dirs.append(root)
    return dirs


def _dist_infos(dirs: list[str]) -> Iterator[str]:
    """Metadata dirs in importlib.metadata's order: by path entry, then by name first seen."""
    for root in dirs:
        try:
            children = os.listdir(root)
        except OSError:
            continue
        by_name: dict[str, list[str]] = {}
        for child in children:
            low = child.lower()
            if low.endswith((".dist-info", ".egg-info")):
                key = _normalize(low.rpartition(".")[0].partition("-")[0])
                by_name.setdefault(key, []).append(os.path.join(root, child))
        for infos in by_name.values():
            yield from infos


def _section(text: str, group: str) -> Iterator[tuple[str, str]]:
    """``name = value`` lines of the ``[group]`` section of an entry_points.txt."""
    current = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = line[1:-1].strip()
        elif current == group and "=" in line:
            name, value = line.split("=", 1)
            yield name.strip(), value.strip()


def _name_version(info: str) -> tuple[str | None, str | None]:
    """``Name`` and ``Version`` from the metadata's headers (the body is never read)."""
    fields: dict[str, str] = {}
    for filename in ("METADATA", "PKG-INFO"):
        try:
            with open(os.path.join(info, filename), encoding="utf-8") as handle:
                for line in handle:
                    if not line.strip():
                        break
                    key, sep, value = line.partition(":")
                    if sep and key.lower() in ("name", "version"):
                        fields.setdefault(key.lower(), value.strip())
        except OSError:
            continue
        break
    return fields.get("name"), fields.get("version")


def _from_importlib(group: str) -> list[EntryPointRef]:
    from importlib.metadata import entry_points as metadata_entry_points

    return [
        EntryPointRef(
            ep.name,
            ep.value,
            ep.dist.name if ep.dist else None,
            ep.dist.version if ep.dist else None,
        )
        for ep in metadata_entry_points(group=group)
    ]


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except OSError:
        return None


def _normalize(name: str) -> str:
    return _SEPARATORS.sub("_", name).lower()
