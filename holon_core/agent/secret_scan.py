"""Find credentials the engine put into its results, without altering those results.

``diff.patch`` and the engine's own output files are never redacted (that would corrupt
them); a passed credential found there makes the run ``needs_human`` instead, naming where.
Everything the engine can write is looked at: the patch's added lines *and* the new file
names it records, the output dir's files including ``evidence/`` (the engine can write
there too), every name in the output dir and every symlink's target.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path

from holon_core.redact import Redactor

#: Larger files are scanned up to this many bytes.
SCAN_LIMIT = 64 * 1024 * 1024
#: Header lines of a patch section that carry the new side's file name.
_NEW_NAME = ("+++ ", "rename to ", "copy to ")
#: holon's own files at the top of the output dir, scanned elsewhere or written redacted.
_HOLON_FILES = {"diff.patch", "manifest.json"}
#: Where the engine can write files that are not listed as its artifacts.
_UNLISTED = {"evidence"}


def scan_patch(redact: Redactor, patch: Path, workspace: Path, binary: Iterable[str]) -> list[str]:
    """Workspace files whose new name, added lines (text) or new content (binary) hold one."""
    flagged: list[str] = []
    for name, new_side in _sections(patch):
        # joined, so a credential wrapped over several added lines is found too
        if redact.find(name) or redact.find("\n".join(new_side)):
            flagged.append(name)
    for rel in binary:  # a GIT binary patch is base85: look at the file itself
        if rel not in flagged and _file_has_secret(redact, workspace / rel):
            flagged.append(rel)
    return flagged


def _sections(patch: Path) -> Iterator[tuple[str, list[str]]]:
    """Per file: its name and the text only the new side has (added lines, new names)."""
    current: str | None = None
    new_side: list[str] = []
    with patch.open(encoding="utf-8", errors="replace", newline="\n") as handle:
        for raw in handle:
            line = raw.rstrip("\n")
            if line.startswith("diff --git "):
                if current is not None:
                    yield current, new_side
                current, new_side = line.rsplit(" b/", 1)[-1], []
            elif line.startswith(_NEW_NAME):
                new_side.append(line)
            elif line.startswith("+"):
                new_side.append(line[1:])
    if current is not None:
        yield current, new_side


def scan_outputs(redact: Redactor, output: Path, names: Iterable[str]) -> list[str]:
    """Output-dir entries holding a credential, as ``output/NAME``.

    ``names`` are the engine's files the run produced; on top of those, everything under
    ``evidence/``, ``.holon-*`` files, every entry's name and every symlink's target (links
    are never followed).
    """
    wanted = set(names)
    flagged: list[str] = []
    for rel, mode in _walk(output):
        top = rel.split("/", 1)[0]
        if rel in _HOLON_FILES:
            continue
        hit = redact.find(rel)
        if not hit and stat.S_ISLNK(mode):
            hit = _link_has_secret(redact, output / rel)
        elif not hit and stat.S_ISREG(mode) and (rel in wanted or top in _UNLISTED or _hidden(top)):
            hit = _file_has_secret(redact, output / rel)
        if hit:
            flagged.append(f"output/{rel}")
    return flagged


def _hidden(top: str) -> bool:
    """``.holon-*`` names are left out of the inventory, yet the engine can write them."""
    return top.startswith(".holon-")


def _walk(root: Path) -> Iterator[tuple[str, int]]:
    """``(relative path, lstat mode)`` of everything under ``root``, links not followed."""
    for dirpath, dirnames, filenames in os.walk(root):
        for name in sorted(dirnames + filenames):
            full = Path(dirpath) / name
            try:
                mode = full.lstat().st_mode
            except OSError:
                continue
            yield full.relative_to(root).as_posix(), mode


def _link_has_secret(redact: Redactor, path: Path) -> bool:
    try:
        return redact.find(str(path.readlink()))
    except OSError:
        return False


def _file_has_secret(redact: Redactor, path: Path) -> bool:
    """Content check of a regular file, opened without following a link or blocking."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return False
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return False
    with os.fdopen(fd, "rb") as handle:
        return redact.find_bytes(handle.read(SCAN_LIMIT))
