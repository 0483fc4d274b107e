"""An empty output directory for every run (RFC-0002 section 4: the runner MUST clear it).

A user-chosen ``--output`` that already holds files is cleared only when it looks like an
earlier holon output (it has ``manifest.json``); anything else is refused, because deleting a
user's unrelated files to make room for a record would be far worse than asking.
"""

from __future__ import annotations

import shutil
import stat
from collections.abc import Callable
from pathlib import Path

from holon_core.errors import InputError


def prepare_output(output: Path, workspace: Path) -> None:
    """Create ``output`` or empty an earlier holon output there; refuse anything else."""
    output, workspace = output.absolute(), workspace.resolve()
    resolved = output.resolve()
    if resolved == workspace or workspace.is_relative_to(resolved):
        raise InputError(
            f"output directory {output} would contain the workspace {workspace}",
            hint="pass an --output directory that does not contain the workspace",
        )
    if output.is_symlink() or (output.exists() and not output.is_dir()):
        raise InputError(
            f"output path {output} exists and is not a directory",
            hint="pass --output DIR naming a new or an earlier holon output directory",
        )
    if output.is_dir() and any(output.iterdir()):
        if not (output / "manifest.json").is_file():
            raise InputError(
                f"output directory {output} is not empty and holds no manifest.json, "
                "so it does not look like an earlier holon output; refusing to delete its files",
                hint="pass a new or empty directory to --output",
            )
        _empty(output)
    try:
        output.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(
            f"cannot create output directory {output}: {exc.strerror or exc}",
            hint="pass a writable --output DIR",
        ) from exc


def _empty(directory: Path) -> None:
    for child in directory.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child, onerror=_make_writable)
        else:
            child.unlink()


def _make_writable(func: Callable[[str], object], path: str, _exc: object) -> None:
    """Engines leave read-only directories behind; open them up and retry once."""
    parent = Path(path).parent
    parent.chmod(parent.stat().st_mode | stat.S_IRWXU)
    func(path)
