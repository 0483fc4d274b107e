"""What the engine did to the workspace's own ``.git``, told after the run.

``diff.patch`` is taken against holon's private baseline, so it is complete whatever became of
the repository; but a deleted or broken ``.git`` (history, branches, stashes), or a moved
``HEAD``, is a change the patch cannot show. The agent reports it as a warning: the record is
still right, the person applying it should know what the engine did besides.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from holon_core.workspace._git import run_git

if TYPE_CHECKING:
    from holon_core.workspace.baseline import Baseline


def git_dir_change(baseline: Baseline) -> str | None:
    """A sentence naming what happened to the repository's ``.git`` since the baseline, or
    None when its ``HEAD`` is where it was (or the workspace was no repository).

    git reads the repository the engine may have rewritten, so only a read-only lookup runs,
    with the fsmonitor hook (the one repo setting that could start a program here) off.
    """
    git_dir = baseline.repo_git_dir
    if baseline.kind != "git" or git_dir is None:
        return None
    where = "diff.patch still holds every change against the baseline holon recorded"
    if not (baseline.workspace / ".git").exists() or not git_dir.is_dir():
        return f"the engine deleted the workspace's .git (its history and branches there); {where}"
    lookup = ["-c", "core.fsmonitor=false", "rev-parse", "--verify", "-q", "HEAD^{commit}"]
    proc = run_git(lookup, cwd=baseline.workspace, git_dir=git_dir, check=False)
    head = proc.stdout.decode(errors="replace").strip() if proc.returncode == 0 else None
    if head == baseline.head:
        return None
    before = baseline.head[:12] if baseline.head else "an unborn branch"
    if proc.returncode not in (0, 1):
        lines = proc.stderr.decode(errors="replace").strip().splitlines()
        why = f" ({lines[-1]})" if lines else ""
        return f"the engine broke the workspace's .git: git can no longer read it{why}; {where}"
    if head is None:
        return (
            f"the engine damaged the workspace's .git: HEAD (was {before}) no longer resolves "
            f"to a commit; {where}"
        )
    return (
        f"the engine moved HEAD in the workspace's .git from {before} to {head[:12]} "
        f"(it committed, reset or switched branches); {where}"
    )
