"""An empty output directory for every run (RFC-0002 section 4: the runner MUST clear it).

A user-chosen ``--output`` that already holds files is cleared only when holon marked it as its
own output (a regular file ``.holon-owned``, written by ``holon run`` or ``holon-agent``).
Holding a ``manifest.json`` proves nothing (a web extension has one), and deleting a user's
files to make room for a record would be far worse than asking.
"""

from __future__ import annotations

from pathlib import Path

from holon_core.agent.output_dir import MARKER, filesystem_own, foreign_files, mark_owned
from holon_core.errors import InputError
from holon_core.runner.layout import make_parents
from holon_core.untrusted.files import HeldDir, open_up
from holon_core.untrusted.quoting import name_list


def prepare_output(output: Path, workspace: Path) -> list[Path]:
    """Create ``output`` or empty an earlier holon output there, and mark it as holon's;
    refuse anything else. Returns the directories it created (outermost first)."""
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
    created: list[Path] = []
    try:
        if output.is_dir():
            _refuse_foreign(output)
        else:
            created = make_parents(output)
        held = HeldDir.open(output)
    except OSError as exc:
        raise InputError(
            f"cannot use output directory {output}: {exc.strerror or exc}",
            hint="pass a writable --output DIR",
        ) from exc
    try:
        held.restore_access()
        for entry in sorted(held.view.iterdir()):
            if entry.name != MARKER and not filesystem_own(entry):
                open_up(entry)
                held.remove(entry.name)
        mark_owned(held, owner="holon run")
    except OSError as exc:
        raise InputError(
            f"cannot empty output directory {output}: {exc.strerror or exc}",
            hint="remove its contents yourself or pass a new --output DIR",
        ) from exc
    finally:
        held.close()
    return created


def _refuse_foreign(output: Path) -> None:
    names = foreign_files(output)
    if names:
        shown = name_list(names)
        raise InputError(
            f"output directory {output} is not empty ({shown}) and has no {MARKER} marker, so "
            "holon did not make it; refusing to delete its files",
            hint="pass a new or empty directory to --output (holon marks its own with "
            f"{MARKER}; remove an old output's files yourself)",
        )
