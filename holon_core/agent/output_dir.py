"""Which output dir holon-agent may use, and what it holds there before the engine starts.

holon-agent writes into a directory that is missing (it creates it), empty, or marked as
holon's own by a regular file ``.holon-owned`` (written by holon-agent or ``holon run``). A
directory holding files holon did not write is refused and left untouched: they may be the
user's. In a marked dir, holon's own artifacts of an earlier run (manifest.json, diff.patch,
summary.md, evidence/) are removed; other files stay and are kept out of the inventory unless
the run rewrites them.

Before the launch holon also reserves room for the final record (``.holon-reserve``, 1 MiB,
allocated and held open) so an engine that fills the disk cannot leave the run without a
manifest; :func:`release_space` frees it just before the record is written.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
from datetime import UTC, datetime
from pathlib import Path

from holon_core.untrusted.files import FILE_MODE, HeldDir, walk_entries
from holon_core.untrusted.quoting import name_list

MARKER = ".holon-owned"
RESERVE = ".holon-reserve"
RESERVE_BYTES = 1 << 20
HOLON_OWNED = ("manifest.json", "diff.patch", "summary.md", "evidence")


def foreign_files(output: Path) -> list[str]:
    """Entries of an existing, unmarked, non-empty ``output`` (empty: holon may use it)."""
    try:
        names = sorted(p.name for p in output.iterdir())
        marker = (output / MARKER).lstat() if MARKER in names else None
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError:
        return []  # unreadable: the writability check names the problem
    if marker is not None and stat.S_ISREG(marker.st_mode):
        return []
    return [n for n in names if not filesystem_own(output / n)]


def filesystem_own(path: Path) -> bool:
    """``lost+found`` at the root of a fresh volume mounted as the output dir is not a user's."""
    return path.name == "lost+found" and path.is_dir() and not path.is_symlink()


def refusal(output: Path, names: list[str]) -> str:
    shown = name_list(names)
    return (
        f"holon-agent: error: the output dir {output} already holds files holon did not write "
        f"({shown}); holon-agent will not delete or mix in them\n"
        f"holon-agent: fix: pass an empty or new --output DIR (holon marks the dirs it owns with "
        f"{MARKER}; remove the files yourself if they are an old holon output)"
    )


def foreign_problem(output: Path) -> str | None:
    """For the probe: why ``output`` cannot be used (files holon did not write), or None."""
    names = foreign_files(output)
    if not names:
        return None
    shown = name_list(names)
    return f"{output} holds files holon did not write ({shown}); give holon an empty dir"


def mark_owned(held: HeldDir, owner: str = "holon-agent") -> None:
    """Write the ``.holon-owned`` marker unless one is there (a later run may reuse the dir)."""
    if held.lstat(MARKER) is None:
        stamp = datetime.now(UTC).isoformat(timespec="seconds")
        held.write_atomic(MARKER, json.dumps({"owner": owner, "created": stamp}) + "\n")


def claim_output(output: Path) -> tuple[HeldDir, dict[str, int]]:
    """Open and mark ``output`` as holon's; remove stale holon artifacts.

    Returns the held directory and the files that remain, with their mtimes (ns).
    """
    held = HeldDir.open(output)
    mark_owned(held)
    for name in HOLON_OWNED:
        held.remove(name)
    root = held.view
    remaining = {}
    for path in walk_entries(root):
        rel = path.relative_to(root).as_posix()
        if not rel.startswith(".holon-"):
            remaining[rel] = path.lstat().st_mtime_ns
    return held, remaining


def reserve_space(held: HeldDir) -> int:
    """Allocate the record's reserve; returns its open descriptor (keep it until release).

    Held open, the blocks stay allocated even if the engine deletes the name.
    """
    held.remove(RESERVE)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(RESERVE, flags, FILE_MODE, dir_fd=held.fd)
    try:
        try:
            os.posix_fallocate(fd, 0, RESERVE_BYTES)
        except OSError as exc:
            if exc.errno not in (errno.EOPNOTSUPP, errno.EINVAL):
                raise
            os.write(fd, bytes(RESERVE_BYTES))  # a filesystem without fallocate
    except BaseException:
        os.close(fd)
        raise
    return fd


def release_space(held: HeldDir, fd: int | None) -> None:
    """Free the reserve for the record (removing the name, closing the descriptor)."""
    with contextlib.suppress(OSError):
        held.remove(RESERVE)
    if fd is not None:
        with contextlib.suppress(OSError):
            os.close(fd)


def where_now(held: HeldDir) -> str:
    """Where the held directory is now (Linux), for an error message."""
    try:
        return str(Path(f"/proc/self/fd/{held.fd}").readlink())
    except OSError:
        return "an unknown place"


def take_back_access(*dirs: HeldDir) -> list[str]:
    """Give holon's own dirs their owner's rwx back if the engine took it; notes for warnings.

    The engine runs as the same user, so it can chmod holon's dirs; holon, their owner too,
    chmods them back (these dirs only, nothing the engine created).
    """
    notes = []
    for held in dirs:
        try:
            note = held.restore_access()
        except OSError as exc:
            note = f"{held.path} is not writable and holon could not restore it: {exc}"
        if note:
            notes.append(f"the engine changed permissions: {note}")
    return notes


def replaced_problem(out: HeldDir, evidence: HeldDir) -> str | None:
    """Why the record is not where the run's paths say (the engine swapped a dir), or None."""
    for held, name in ((out, "the output dir"), (evidence, "evidence/")):
        if held.replaced():
            return (
                f"{name} {held.path} was replaced during the run (by the engine or a tool it "
                f"ran); holon wrote the record into the directory it created, now at "
                f"{where_now(held)}, and followed no link"
            )
    return None
