"""Record what the workspace looked like before the engine ran, without touching the user's git.

The baseline is a git tree in a private git dir under holon's scratch directory, whose work tree
is the workspace. For a git repo it borrows the user's objects through alternates (read-only)
and starts from a copy of the user's index, so hashing is limited to what is dirty or untracked.

The workspace's own ``.git`` is the engine's to break (``rm -rf .git``, ``git prune``): so once
the tree is written, the private dir stops depending on it. When the repository's object store
lies inside the workspace, its files are hard-linked into the private store (no bytes copied; a
deleted, pruned or repacked ``.git`` leaves the links intact); where links cannot be made (the
state dir on another filesystem) the tree's objects are packed into it instead. The private dir
then borrows only from the repository's own alternates, never through the workspace. A store
outside the workspace (a worktree's common dir) stays borrowed, and only the objects the tree
has beyond the commit's tree are packed. One limit: a hard link shares the file, so an engine
writing into a pack's bytes in place (git never does) reaches the copy too; the diff then fails
with git's message rather than record something wrong.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from holon_core.errors import WorkspaceError
from holon_core.workspace._git import (
    EMPTY_TREE,
    MARKER,
    add_all,
    adopt_index,
    init_private,
    probe_repo,
    relative_inside,
    run_git,
)

if TYPE_CHECKING:
    from pathlib import Path

    from holon_core.workspace._git import RepoInfo


@dataclass(frozen=True)
class Baseline:
    """The recorded starting point that ``write_diff`` compares against."""

    kind: Literal["git", "directory"]
    workspace: Path
    git_dir: Path
    tree: str
    head: str | None
    dirty: bool | None
    #: The repository's own git dir (``.git``), to tell afterwards what the engine did to it.
    repo_git_dir: Path | None = None

    def as_manifest(self) -> dict[str, object]:
        return {"kind": self.kind, "head": self.head, "tree": self.tree, "dirty": self.dirty}


def record_baseline(workspace: Path, scratch_dir: Path) -> Baseline:
    """Snapshot the workspace state (tracked, dirty and untracked-not-ignored) as a tree."""
    if not workspace.is_dir():
        raise WorkspaceError(
            f"workspace {workspace} is not a directory",
            hint="pass an existing directory as the workspace",
        )
    workspace = workspace.resolve()
    git_dir = scratch_dir.resolve() / "baseline.git"
    _fresh_dir(git_dir)
    repo = probe_repo(workspace)
    inside = relative_inside(git_dir, workspace)
    init_private(git_dir, repo, [f"/{inside}/"] if inside else [])
    if repo is not None:
        adopt_index(repo, git_dir, workspace)
    add_all(git_dir, workspace)
    tree = run_git(["write-tree"], cwd=workspace, git_dir=git_dir).stdout.decode().strip()
    if repo is not None:
        _keep_objects(git_dir, repo, tree)
    if repo is None:
        return Baseline("directory", workspace, git_dir, tree, None, None)
    reference = repo.head_tree or EMPTY_TREE.get(repo.object_format)
    dirty = tree != reference
    return Baseline("git", workspace, git_dir, tree, repo.head, dirty, repo.git_dir)


def _keep_objects(git_dir: Path, repo: RepoInfo, tree: str) -> None:
    """Make the baseline survive the loss of the workspace's ``.git`` (see the module doc)."""
    store = repo.common_dir / "objects"
    borrowed = borrowed_stores(store)
    if relative_inside(store, repo.toplevel) is None:
        _pack(git_dir, tree, repo.head_tree)
        borrowed.insert(0, store)
    elif not _link_store(store, git_dir / "objects"):
        _pack(git_dir, tree, None)
    listing = git_dir / "objects" / "info" / "alternates"
    listing.write_text("".join(f"{path}\n" for path in borrowed), errors="surrogateescape")


def _pack(git_dir: Path, tree: str, known: str | None) -> None:
    """Pack the objects of ``tree`` (beyond those of ``known``) into the private store."""
    args = ["rev-list", "--objects", "--no-object-names", tree]
    if known:
        args += ["--not", known]
    listed = run_git(args, cwd=git_dir, git_dir=git_dir).stdout
    if listed.strip():
        run_git(
            ["pack-objects", "-q", str(git_dir / "objects" / "pack" / "pack")],
            cwd=git_dir,
            git_dir=git_dir,
            stdin=listed,
            stdout=subprocess.DEVNULL,
        )


def _link_store(store: Path, own: Path) -> bool:
    """Hard-link every pack and loose object of ``store`` into ``own``; False when a link
    cannot be made (another filesystem, a file vanishing under a concurrent gc)."""
    try:
        for entry in os.scandir(store):
            if entry.name == "pack":
                _link_files(entry.path, own / "pack", skip="tmp_")
            elif len(entry.name) == 2 and entry.is_dir(follow_symlinks=False):
                _link_files(entry.path, own / entry.name, skip="tmp_")
    except OSError:
        return False
    return True


def _link_files(src: str, dest: Path, *, skip: str) -> None:
    dest.mkdir(exist_ok=True)
    for entry in os.scandir(src):
        if entry.name.startswith(skip) or not entry.is_file(follow_symlinks=False):
            continue
        with contextlib.suppress(FileExistsError):  # the same object (by its hash) is ours
            os.link(entry.path, dest / entry.name)


def borrowed_stores(objects: Path, depth: int = 0) -> list[Path]:
    """The object stores ``objects`` borrows from through ``info/alternates``, transitively
    (git follows five levels), as git reads them: relative lines against ``objects``, ``#``
    lines skipped. A store borrowed twice is listed twice."""
    listing = objects / "info" / "alternates"
    if depth >= 5 or not listing.is_file():
        return []
    found: list[Path] = []
    for line in listing.read_text(errors="surrogateescape").splitlines():
        if line.strip() and not line.startswith("#"):
            path = (objects / line.strip()).resolve()
            found += [path, *borrowed_stores(path, depth + 1)]
    return found


def _fresh_dir(git_dir: Path) -> None:
    """Start from an empty private dir; only ever delete one that holon created."""
    if git_dir.exists():
        if not (git_dir / MARKER).is_file():
            raise WorkspaceError(
                f"{git_dir} exists and was not created by holon",
                hint="point the scratch directory somewhere empty",
            )
        shutil.rmtree(git_dir)
    git_dir.mkdir(parents=True)
