"""Write ``diff.patch``: every change since the baseline, in a form ``git apply`` accepts.

One git process produces both the per-file numstat (to list changed and binary files) and the
patch; the patch bytes are pumped straight to disk in chunks, never held in memory whole.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING

from holon_core.errors import WorkspaceError
from holon_core.untrusted.files import HeldDir
from holon_core.workspace._git import (
    exclude_pathspecs,
    git_binary,
    git_env,
    relative_inside,
    run_git,
    unborn_repositories,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

    from holon_core.workspace.baseline import Baseline

_CHUNK = 1 << 20
DIFF_OPTIONS = (
    "--binary",
    "--full-index",
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--no-renames",
    "--src-prefix=a/",
    "--dst-prefix=b/",
    "--diff-algorithm=myers",
)


@dataclass(frozen=True)
class DiffResult:
    """What changed, and where the patch that reproduces it was written."""

    changed: bool
    files: list[str]
    binary_files: list[str]
    patch_path: Path
    patch_bytes: int


def write_diff(
    baseline: Baseline,
    patch_path: Path,
    exclude: Sequence[str] = (),
    *,
    into: HeldDir | None = None,
) -> DiffResult:
    """Record the workspace's current state and write its difference from the baseline.

    ``exclude`` holds paths, globs or pathspecs of files holon placed; they never appear.
    ``into`` is the already-open directory of ``patch_path`` (the agent's output dir, which the
    engine could have swapped): the patch is written through it, never through a link.
    """
    workspace, git_dir = baseline.workspace, baseline.git_dir
    specs = exclude_pathspecs(exclude)  # only exclusions: git reads it as "all but"
    own = relative_inside(patch_path, workspace)
    if own:
        specs.append(f":(exclude,literal){own}")
    run_git(["add", "-A", "--", *specs], cwd=workspace, git_dir=git_dir, work_tree=workspace)
    if into is None:
        patch_path.parent.mkdir(parents=True, exist_ok=True)
    held = into or HeldDir.open(patch_path.parent)
    cmd = [
        git_binary(),
        f"--git-dir={git_dir}",
        f"--work-tree={workspace}",
        "diff",
        "--cached",
        "--numstat",
        "-z",
        "--patch",
        *DIFF_OPTIONS,
        baseline.tree,
        "--",
        *specs,
    ]
    try:
        with held.replacing(patch_path.name) as out, tempfile.TemporaryFile() as err:
            proc = subprocess.Popen(
                cmd, cwd=workspace, env=git_env(), stdout=subprocess.PIPE, stderr=err
            )
            assert proc.stdout is not None
            numstat = _pump(proc.stdout.fileno(), out)
            proc.stdout.close()
            if proc.wait() != 0:
                err.seek(0)
                detail = err.read().decode(errors="replace").strip()
                raise WorkspaceError(
                    f"git diff failed: {detail or f'exit {proc.returncode}'}",
                    hint="check that the workspace and the scratch directory are readable",
                )
            size = out.tell()
    finally:
        if into is None:
            held.close()
    files, binary = _parse_numstat(numstat)
    where = into.view / patch_path.name if into is not None else patch_path
    return DiffResult(bool(files), files, binary, where, size)


def _pump(fd: int, out: IO[bytes]) -> bytes:
    """Split git's output into the numstat head (returned) and the patch (written to ``out``)."""
    write = out.write
    head = b""
    in_head = True
    while chunk := os.read(fd, _CHUNK):
        if in_head:
            head += chunk
            end = head.find(b"\0\0")
            if end < 0:
                continue
            write(head[end + 2 :])
            head, in_head = head[: end + 1], False
        else:
            write(chunk)
    return head


def _parse_numstat(head: bytes) -> tuple[list[str], list[str]]:
    files: list[str] = []
    binary: list[str] = []
    for record in head.split(b"\0"):
        if not record:
            continue
        added, _deleted, path = record.split(b"\t", 2)
        name = os.fsdecode(path)
        files.append(name)
        if added == b"-":
            binary.append(name)
    return files, binary


def nested_repositories(baseline: Baseline) -> list[str]:
    """Nested git repositories in the workspace (gitlinks, and unborn ones left out).

    git records them as a commit pointer, so edits inside them cannot be in ``diff.patch``;
    the agent says so in the manifest rather than reporting a silent "no changes".
    """
    listing = run_git(
        ["ls-files", "--stage", "-z"], cwd=baseline.workspace, git_dir=baseline.git_dir
    ).stdout
    gitlinks = {
        os.fsdecode(entry.split(b"\t", 1)[1])
        for entry in listing.split(b"\0")
        if entry.startswith(b"160000 ")
    }
    return sorted(gitlinks | set(unborn_repositories(baseline.git_dir)))
