"""Write ``manifest.json``: shaped and checked as the published model (``manifest_json``),
redacted, atomic.

A manifest a skill or the engine wrote during the run is merged, not overwritten: its extra
top-level keys and metadata keys survive unless holon owns the key. ``artifacts`` is the
inventory of the output directory (files this run produced); what a skill declared counts
only when the file exists. Reading that manifest back safely is ``engine_manifest.py``'s job.
"""

from __future__ import annotations

import stat
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from holon_core.record.engine_manifest import MANIFEST, merge_skill_manifest, read_skill_manifest
from holon_core.record.manifest_json import manifest_text
from holon_core.untrusted.files import HeldDir, walk_entries
from holon_core.untrusted.redact import Redactor

__all__ = [
    "MANIFEST",
    "inventory",
    "merge_skill_manifest",
    "read_skill_manifest",
    "settle_artifacts",
    "write_manifest",
]


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


def settle_artifacts(
    manifest: dict[str, Any], output: Path, declared: Iterable[tuple[str, Iterable[str]]] = ()
) -> dict[str, Any]:
    """``artifacts`` keeps only files that exist; a skill's declared but absent files warn.

    A ``manifest.json`` the engine wrote may name files it never produced, and a skill's
    front matter (``artifacts: [...]``) names what it means to write: the record lists what
    is really there (RFC-0003 8.1) and says in ``metadata.warnings`` what is missing.
    """
    root = output.resolve()
    listed = manifest.get("artifacts", [])
    kept = [a for a in listed if a == MANIFEST or _listable(output / a, root)]
    warnings = []
    if len(kept) != len(listed):
        gone = sorted(set(listed) - set(kept))
        warnings.append(f"artifacts declared in manifest.json but not written: {', '.join(gone)}")
    for skill, paths in declared:
        absent = [p for p in paths if p not in kept]
        if absent:
            warnings.append(
                f"skill {skill} declares artifacts the run did not write: {', '.join(absent)}"
            )
    settled = {**manifest, "artifacts": kept}
    if warnings:
        meta = dict(settled["metadata"])
        meta["warnings"] = [*meta.get("warnings", []), *warnings]
        settled["metadata"] = meta
    return settled


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


def write_manifest(output: HeldDir, data: dict[str, Any], redact: Redactor) -> None:
    """Shape and check, redact and atomically write (through the held dir)."""
    output.write_atomic(MANIFEST, redact(manifest_text(_without_secret_names(data, redact))))


def _without_secret_names(data: dict[str, Any], redact: Redactor) -> dict[str, Any]:
    """``artifacts`` without the files whose names redaction would change, named (redacted)
    in ``metadata.warnings`` instead.

    The manifest is redacted as a whole, so such a file would be listed under a name that
    does not exist; the file itself is left as the engine wrote it (its name already makes
    the run ``needs_human``: ``secret_scan.py``).
    """
    listed = data.get("artifacts", [])
    hidden = [name for name in listed if isinstance(name, str) and redact(name) != name]
    if not hidden:
        return data
    warning = (
        "output files left out of artifacts because their names hold a credential (shown "
        f"redacted, which is not their name on disk): {', '.join(map(redact, hidden))}"
    )
    meta = dict(data.get("metadata", {}))
    meta["warnings"] = [*meta.get("warnings", []), warning]
    return {**data, "artifacts": [a for a in listed if a not in hidden], "metadata": meta}
