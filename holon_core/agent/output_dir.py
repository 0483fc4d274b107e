"""Start from a clean record: artifacts an earlier run left are not mixed into this one.

holon's own artifacts (manifest.json, diff.patch, summary.md, evidence/) are removed; any
other file already there is left alone (it may be the user's) and kept out of the inventory
unless the run rewrites it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from holon_core.files import clear_path

if TYPE_CHECKING:
    from pathlib import Path

HOLON_OWNED = ("manifest.json", "diff.patch", "summary.md", "evidence")


def prepare_output(output: Path) -> dict[str, int]:
    """Remove stale holon artifacts; return the files that remain, with their mtimes (ns)."""
    for name in HOLON_OWNED:
        clear_path(output / name)
    return {
        p.relative_to(output).as_posix(): p.lstat().st_mtime_ns
        for p in output.rglob("*")
        if p.is_file() or p.is_symlink()
    }
