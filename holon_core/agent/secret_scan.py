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

from holon_core.untrusted.redact import Redactor

#: A file is read in pieces of this many bytes...
SCAN_CHUNK = 16 * 1024 * 1024
#: ...each scanned with this much of the one before: longer than any printed form of a
#: credential (percent-encoded or JSON-escaped up to 6 characters per byte, hex, base64;
#: wrapped forms add line breaks and indentation), so none is missed where two pieces meet.
SCAN_OVERLAP = 1024 * 1024
#: A larger file is not scanned (about 20 s of work per GiB): it needs a human instead.
SCAN_LIMIT = 1024 * 1024 * 1024
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
        if rel not in flagged and (found := _file_check(redact, workspace / rel)) is not None:
            flagged.append(rel + found)
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
        found: str | None = "" if redact.find(rel) else None
        if found is None and stat.S_ISLNK(mode):
            found = "" if _link_has_secret(redact, output / rel) else None
        elif (
            found is None
            and stat.S_ISREG(mode)
            and (rel in wanted or top in _UNLISTED or _hidden(top))
        ):
            found = _file_check(redact, output / rel)
        if found is not None:
            flagged.append(f"output/{rel}{found}")
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


def _file_check(redact: Redactor, path: Path) -> str | None:
    """Content check of a regular file, opened without following a link or blocking.

    None when it holds no credential; ``""`` when it holds one; the reason, to follow the
    file's name, when it is too large to scan (that needs a human as much as a finding).
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None
        if info.st_size > SCAN_LIMIT:
            return _too_large(info.st_size)
        total, tail = 0, b""
        while chunk := handle.read(SCAN_CHUNK):
            total += len(chunk)
            if total > SCAN_LIMIT:  # grew while read
                return _too_large(total)
            window = tail + chunk
            if redact.find_bytes(window):
                return ""
            tail = window[-SCAN_OVERLAP:]
    return None


def _too_large(size: int) -> str:
    return (
        f" (not scanned for credentials: {size} bytes, over the scan limit of {SCAN_LIMIT} bytes)"
    )
