"""Record what the workspace looked like before the engine ran, without touching the user's git.

The baseline is a git tree in a private git dir under holon's scratch directory, whose work tree
is the workspace. For a git repo it borrows the user's objects through alternates (read-only)
and starts from a copy of the user's index, so hashing is limited to what is dirty or untracked.

The workspace's own ``.git`` is the engine's to break (``rm -rf .git``): so after the tree is
written, every object it needs beyond the commit's tree is packed into the private git dir, and
the private dir borrows from the repository's alternates directly rather than through the
workspace. Under ``holon run`` the snapshot's ``.git`` only holds the dirty and untracked
files' blobs (the history stays in the user's repository), so this pack is small.
"""

from __future__ import annotations

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
    return Baseline("git", workspace, git_dir, tree, repo.head, tree != reference)


def _keep_objects(git_dir: Path, repo: RepoInfo, tree: str) -> None:
    """Make the baseline survive the deletion of the workspace's ``.git``: pack the objects
    the tree has beyond the commit's tree into our own store, and borrow the rest from the
    repository's own alternates (if it has any) without going through the workspace."""
    args = ["rev-list", "--objects", "--no-object-names", tree]
    if repo.head_tree:
        args += ["--not", repo.head_tree]
    listed = run_git(args, cwd=git_dir, git_dir=git_dir).stdout
    if listed.strip():
        run_git(
            ["pack-objects", "-q", str(git_dir / "objects" / "pack" / "pack")],
            cwd=git_dir,
            git_dir=git_dir,
            stdin=listed,
            stdout=subprocess.DEVNULL,
        )
    borrowed = _alternates(repo.common_dir / "objects")
    if borrowed:
        with (git_dir / "objects" / "info" / "alternates").open("a", encoding="utf-8") as out:
            out.writelines(f"{path}\n" for path in borrowed)


def _alternates(objects: Path, depth: int = 0) -> list[Path]:
    """The object stores ``objects`` borrows from, transitively (git follows five levels)."""
    listing = objects / "info" / "alternates"
    if depth >= 5 or not listing.is_file():
        return []
    found: list[Path] = []
    for line in listing.read_text(errors="surrogateescape").splitlines():
        if line.strip() and not line.startswith("#"):
            path = (objects / line.strip()).resolve()
            found += [path, *_alternates(path, depth + 1)]
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
