"""A throwaway copy of the workspace for the engine to work in (RFC-0002 section 4).

For a git repo the snapshot is a standalone repository that borrows the user's objects through
alternates (no history is copied) and is checked out to the user's *current* state: tracked,
dirty and untracked-but-not-ignored files. It is built without `git clone` or `git worktree`, so
the user's ``.git`` gains no worktree entry, remote or lock and stays byte-for-byte unchanged.
A plain directory is copied (reflinks where the filesystem supports them).
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from holon_core.errors import WorkspaceError
from holon_core.workspace._git import (
    add_all,
    adopt_index,
    init_private,
    probe_repo,
    run_git,
    user_excludes,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from holon_core.workspace._git import RepoInfo


@dataclass(frozen=True)
class Snapshot:
    """Where the snapshot lives, how it was made, and what it was made from."""

    path: Path
    kind: Literal["git-clone", "copy"]
    source: Path


def make_snapshot(source: Path, dest: Path) -> Snapshot:
    """Materialize ``source``'s current state at ``dest`` (absent or empty)."""
    if not source.is_dir():
        raise WorkspaceError(
            f"workspace {source} is not a directory",
            hint="pass an existing directory as the workspace",
        )
    source, dest = source.resolve(), dest.resolve()
    if dest == source or dest.is_relative_to(source) or source.is_relative_to(dest):
        raise WorkspaceError(
            f"snapshot {dest} overlaps the workspace {source}",
            hint="put the snapshot outside the workspace",
        )
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise WorkspaceError(
            f"snapshot destination {dest} is not empty",
            hint="choose a new directory for the snapshot",
        )
    dest.mkdir(parents=True, exist_ok=True)
    repo = probe_repo(source)
    try:
        if repo is None:
            listed = _repo_subdir_files(source)
            if listed is None:
                _copy_tree(source, dest)
            else:
                _copy_listed(source, dest, listed)
            return Snapshot(dest, "copy", source)
        _git_snapshot(repo, source, dest)
        return Snapshot(dest, "git-clone", source)
    except BaseException:
        _rmtree(dest)
        raise


def remove_snapshot(snapshot: Snapshot) -> None:
    """Delete the snapshot, including read-only files an engine may have left behind.

    A link the engine put in the snapshot's place is removed, never followed."""
    if snapshot.path.is_symlink():
        snapshot.path.unlink()
        return
    path = snapshot.path.resolve()
    if path == snapshot.source.resolve() or snapshot.source.resolve().is_relative_to(path):
        raise WorkspaceError(
            f"refusing to delete {path}: it holds the original workspace",
            hint="this is a bug in the caller; the workspace was left alone",
        )
    if path.exists():
        _rmtree(path)


def _git_snapshot(repo: RepoInfo, source: Path, dest: Path) -> None:
    git_dir = dest / ".git"
    init_private(git_dir, repo, user_ignores=True)
    shallow = repo.common_dir / "shallow"
    if shallow.is_file():
        shutil.copyfile(shallow, git_dir / "shallow")
    _set_head(git_dir, repo)
    staged: str | None = None
    if adopt_index(repo, git_dir, source):
        tree = run_git(["write-tree"], cwd=source, git_dir=git_dir, check=False)
        staged = tree.stdout.decode().strip() if tree.returncode == 0 else None
    # The index now describes the user's staging area; bring it to their current files.
    add_all(git_dir, source)
    # Creating files is latency-bound, so parallel checkout pays off even on two cores.
    run_git(
        ["-c", "checkout.workers=8", "checkout-index", "-a", "-f", "-u"],
        cwd=dest,
        git_dir=git_dir,
        work_tree=dest,
    )
    # Restore the user's staged/unstaged split; stat data of unchanged entries is kept.
    target = staged or repo.head_tree
    args = ["read-tree", "-m", target] if target else ["read-tree", "--empty"]
    run_git(args, cwd=dest, git_dir=git_dir, work_tree=dest)


def _set_head(git_dir: Path, repo: RepoInfo) -> None:
    if repo.head_ref is not None:
        (git_dir / "HEAD").write_text(f"ref: {repo.head_ref}\n")
        if repo.head is not None:
            ref_file = git_dir / repo.head_ref
            ref_file.parent.mkdir(parents=True, exist_ok=True)
            ref_file.write_text(f"{repo.head}\n")
    elif repo.head is not None:
        (git_dir / "HEAD").write_text(f"{repo.head}\n")


def _repo_subdir_files(source: Path) -> list[bytes] | None:
    """For a workspace inside a repo (not its top level): the files the user's git sees there
    (tracked and untracked, ignored ones left out, as `git status` would); else None."""
    inside = run_git(["rev-parse", "--is-inside-work-tree"], cwd=source, check=False)
    if inside.returncode != 0 or inside.stdout.strip() != b"true":
        return None
    toplevel = Path(run_git(["rev-parse", "--show-toplevel"], cwd=source).stdout.decode().strip())
    with tempfile.NamedTemporaryFile("w", suffix=".exclude", errors="surrogateescape") as ignores:
        ignores.write(user_excludes(toplevel))
        ignores.flush()
        args = ["ls-files", "-z", "--cached", "--others", "--exclude-standard"]
        listing = run_git([*args, f"--exclude-from={ignores.name}"], cwd=source).stdout
    names = {name for name in listing.split(b"\0") if name}
    return sorted(name for name in names if os.path.lexists(source / os.fsdecode(name)))


def _copy_listed(source: Path, dest: Path, names: list[bytes]) -> None:
    """Copy exactly ``names`` (paths relative to ``source``), keeping modes and symlinks."""
    with tempfile.NamedTemporaryFile("wb", suffix=".files") as listing:
        listing.write(b"\0".join(names) + b"\0")
        listing.flush()
        pack = subprocess.Popen(
            ["tar", "-C", str(source), "--null", "--no-recursion", "-T", listing.name, "-cf", "-"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert pack.stdout is not None
        unpack = subprocess.run(
            ["tar", "-C", str(dest), "-xf", "-"],
            stdin=pack.stdout,
            capture_output=True,
            check=False,
        )
        pack.stdout.close()
        _, pack_err = pack.communicate()
    if pack.returncode != 0 or unpack.returncode != 0:
        detail = (pack_err + unpack.stderr).decode(errors="replace").strip()
        raise WorkspaceError(
            f"copying {source} into the snapshot failed: {detail}",
            hint="check that every file in the workspace is readable",
        )


def _copy_tree(source: Path, dest: Path) -> None:
    """GNU cp shares blocks via reflink when it can; elsewhere fall back to a plain copy."""
    if shutil.which("cp"):
        proc = subprocess.run(
            ["cp", "-a", "--reflink=auto", f"{source}/.", str(dest)],
            capture_output=True,
            check=False,
        )
        if proc.returncode == 0:
            return
        for child in list(dest.iterdir()):
            _rmtree(child) if child.is_dir() and not child.is_symlink() else child.unlink()
    shutil.copytree(source, dest, symlinks=True, dirs_exist_ok=True)


def _rmtree(path: Path) -> None:
    """rmtree that first makes read-only directories writable (engines leave such caches)."""

    def retry(func: Callable[..., object], failed: str, *_: object) -> None:
        parent = Path(failed).parent
        parent.chmod(parent.stat().st_mode | stat.S_IWUSR | stat.S_IXUSR)
        func(failed)

    if sys.version_info >= (3, 12):
        shutil.rmtree(path, onexc=retry)
    else:
        shutil.rmtree(path, onerror=retry)
