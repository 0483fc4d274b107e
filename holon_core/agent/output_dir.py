"""Start from a clean record: artifacts an earlier run left are not mixed into this one.

holon's own artifacts (manifest.json, diff.patch, summary.md, evidence/) are removed; any
other file already there is left alone (it may be the user's) and kept out of the inventory.
"""

from __future__ import annotations

import shutil
from pathlib import Path

HOLON_OWNED = ("manifest.json", "diff.patch", "summary.md", "evidence")


def prepare_output(output: Path) -> set[str]:
    """Remove stale holon artifacts; return the relative paths of the files that remain."""
    for name in HOLON_OWNED:
        path = output / name
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        elif path.exists() or path.is_symlink():
            path.unlink()
    return {
        p.relative_to(output).as_posix() for p in output.rglob("*") if p.is_file() or p.is_symlink()
    }
