"""Proving a directory unchanged across a run: the user's workspace and the run's input dir.

The engine runs as the user, so it can write to the original workspace (a path in its prompt,
or the user's repository named by the snapshot's alternates). ``holon run`` takes a cheap
fingerprint before the launch (one ``lstat`` per entry, with ``ctime``, which no tool can set
back: tracked, untracked and ignored files,
and the repository's git dir with its refs, config and hooks) and compares after. Where the
stats of a file differ, content decides when it can: a tracked file git saw as clean is
re-hashed and compared with its blob, and the index is compared by its entries (``git status``
refreshes stat data without changing anything). Everything else that differs is reported.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from holon_core.untrusted.quoting import name_list
from holon_core.workspace._git import probe_repo, run_git

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

#: No fsmonitor hook (a program the repo's config names) runs for a read-only probe.
_READ_ONLY = ("-c", "core.fsmonitor=false")
#: How many changed paths a message names before it says "and N more".
SHOWN = 10
Stat = tuple[object, ...]


@dataclass
class Fingerprint:
    """What a directory looked like: stats per entry, plus what git knew of its content."""

    root: Path
    entries: dict[str, Stat]
    exclude: tuple[Path, ...] = ()
    extra_roots: tuple[Path, ...] = ()
    index_path: Path | None = None
    index_digest: str | None = None
    blobs: dict[str, str] = field(default_factory=dict)
    objects: tuple[str, ...] = ()


def take_fingerprint(root: Path, exclude: Sequence[Path] = (), *, git: bool = True) -> Fingerprint:
    """Stat everything under ``root`` (and a git dir that lives elsewhere), skipping
    ``exclude`` (holon's own dirs inside it, such as an ``--output`` there)."""
    root = root.resolve()
    skip = tuple(p.resolve() for p in exclude)
    repo = probe_repo(root) if git else None
    extra: tuple[Path, ...] = ()
    if repo is not None:
        extra = tuple(
            {p.resolve() for p in (repo.git_dir, repo.common_dir) if not _inside(p, root)}
        )
    objects: tuple[str, ...] = ()
    if repo is not None:
        objects = tuple(
            {_name(p.resolve() / "objects", root) + "/" for p in (repo.git_dir, repo.common_dir)}
        )
    fp = Fingerprint(root, {}, skip, extra, objects=objects)
    for top in (root, *extra):
        fp.entries.update(_scan(top, root, skip, objects))
    if repo is not None:
        fp.index_path = repo.git_dir.resolve() / "index"
        staged = _staged(root)  # one listing serves the digest and the blobs
        fp.index_digest = _digest(staged)
        fp.blobs = _clean_blobs(root, staged)
    return fp


def changed_paths(before: Fingerprint) -> list[str]:
    """The entries added, removed or modified since ``before`` (sorted, with what happened)."""
    now: dict[str, Stat] = {}
    for top in (before.root, *before.extra_roots):
        now.update(_scan(top, before.root, before.exclude, before.objects))
    changed: list[str] = []
    rehash: list[str] = []
    for name in sorted(set(before.entries) | set(now)):
        old, new = before.entries.get(name), now.get(name)
        if old == new:
            continue
        if old is None:
            changed.append(f"{name} (added)")
        elif new is None:
            changed.append(f"{name} (removed)")
        elif old[0] == new[0] == "file" and _is_index(before, name):
            if _index_digest(before.root) != before.index_digest:
                changed.append(f"{name} (modified)")
        elif old[0] == new[0] == "file" and name in before.blobs:
            rehash.append(name)
        else:
            changed.append(f"{name} (modified)")
    changed += [f"{name} (modified)" for name in _differing_blobs(before, rehash)]
    return sorted(changed)


def describe(changes: Sequence[str]) -> str:
    return name_list(list(changes), SHOWN)


def _scan(
    top: Path, root: Path, skip: tuple[Path, ...], objects: tuple[str, ...] = ()
) -> dict[str, Stat]:
    """One lstat per entry below ``top``, never following a link; names relative to ``root``
    (absolute for a git dir outside it). Under ``objects`` (git object stores) a file's
    mtime is left out. Plain strings, not ``Path``: this runs once per file of the workspace."""
    found: dict[str, Stat] = {}
    skipped = {str(path) for path in skip}
    base = "" if top == root else f"{top}/"
    pending: list[tuple[str, str]] = [(str(top), base)]
    while pending:
        directory, prefix = pending.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError as exc:
            found[prefix.rstrip("/") or "."] = ("unreadable", exc.errno)
            continue
        for entry in entries:
            if entry.path in skipped:
                continue
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            name = prefix + entry.name
            mode = st.st_mode
            if stat.S_ISDIR(mode):
                found[name] = ("dir", stat.S_IMODE(mode))
                pending.append((entry.path, name + "/"))
            elif stat.S_ISLNK(mode):
                found[name] = ("link", os.readlink(entry.path))  # noqa: PTH115
            elif stat.S_ISREG(mode) and name.startswith(objects):
                # content-addressed; git "freshens" (touches) objects it finds in alternates
                found[name] = ("file", mode, st.st_size, st.st_ino)
            elif stat.S_ISREG(mode):
                # ctime too: a tool can restore size and mtime after writing, not ctime
                found[name] = ("file", mode, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
            else:
                found[name] = ("special", mode, st.st_ino)
    return found


def _name(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix() if _inside(path, root) else str(path)


def _inside(path: Path, root: Path) -> bool:
    return path.resolve().is_relative_to(root)


def _is_index(fp: Fingerprint, name: str) -> bool:
    return fp.index_path is not None and _name(fp.index_path, fp.root) == name


def _staged(root: Path) -> bytes | None:
    """The index's entries (mode, blob, stage, path), without the stat cache git refreshes."""
    proc = run_git([*_READ_ONLY, "ls-files", "--stage", "-z"], cwd=root, check=False)
    return proc.stdout if proc.returncode == 0 else None


def _digest(staged: bytes | None) -> str | None:
    return None if staged is None else hashlib.sha256(staged).hexdigest()


def _index_digest(root: Path) -> str | None:
    return _digest(_staged(root))


def _clean_blobs(root: Path, staged: bytes | None) -> dict[str, str]:
    """Blob ids of tracked files whose work-tree stats match the index (git's own notion of
    clean); a stat-dirty file is left out and judged by its stats alone."""
    dirty = run_git([*_READ_ONLY, "diff-files", "--name-only", "-z"], cwd=root, check=False)
    if staged is None or dirty.returncode != 0:
        return {}
    skip = set(_split(dirty.stdout))
    blobs: dict[str, str] = {}
    for record in _split(staged):
        meta, _, path = record.partition("\t")
        mode, blob, stage = meta.split(" ")
        if stage == "0" and mode.startswith("100") and path not in skip:
            blobs[path] = blob
    return blobs


def _differing_blobs(before: Fingerprint, names: Iterable[str]) -> list[str]:
    names = list(names)
    if not names:
        return []
    proc = run_git(
        [*_READ_ONLY, "hash-object", "--stdin-paths"],
        cwd=before.root,
        stdin="".join(f"{name}\n" for name in names).encode(errors="surrogateescape"),
        check=False,
    )
    hashes = proc.stdout.decode().split() if proc.returncode == 0 else []
    if len(hashes) != len(names):
        return names
    return [name for name, now in zip(names, hashes, strict=True) if before.blobs[name] != now]


def _split(data: bytes) -> list[str]:
    return [part.decode(errors="surrogateescape") for part in data.split(b"\0") if part]
