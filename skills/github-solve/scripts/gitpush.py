"""Commit the workspace's changes and push them to a branch, without touching the workspace.

The commit is built in a temporary index (``git add -A`` respects ``.gitignore``) on top of
``HEAD``; the workspace's own index, branch and config stay as they are. A remote branch that
already holds the same tree is left alone, so a rerun pushes nothing new.
"""

from __future__ import annotations

import base64
import os
import subprocess
import tempfile
from pathlib import Path

from ghlib import Fail


def _git(
    workspace: Path, *args: str, env: dict[str, str] | None = None, check: bool = True
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        ["git", *args], cwd=workspace, env=env, capture_output=True, text=True, check=False
    )
    if check and done.returncode != 0:
        raise Fail(f"git {args[0]} failed: {done.stderr.strip()[-500:]}")
    return done


def auth_env(url: str, token: str) -> dict[str, str]:
    """The token as an HTTP header through git's environment config: never in argv or a file."""
    env = dict(os.environ)
    env["GIT_TERMINAL_PROMPT"] = "0"
    if url.startswith(("https://", "http://")):
        basic = base64.b64encode(f"x-access-token:{token}".encode()).decode()
        env |= {
            "GIT_CONFIG_COUNT": "1",
            "GIT_CONFIG_KEY_0": "http.extraHeader",
            "GIT_CONFIG_VALUE_0": f"Authorization: Basic {basic}",
        }
    env.setdefault("GIT_AUTHOR_NAME", "holon")
    env.setdefault("GIT_AUTHOR_EMAIL", "holon@users.noreply.github.com")
    env.setdefault("GIT_COMMITTER_NAME", env["GIT_AUTHOR_NAME"])
    env.setdefault("GIT_COMMITTER_EMAIL", env["GIT_AUTHOR_EMAIL"])
    return env


def worktree_tree(workspace: Path) -> tuple[str, str]:
    """(tree of the working tree as it is now, tree of HEAD)."""
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, GIT_INDEX_FILE=str(Path(tmp) / "index"))
        _git(workspace, "read-tree", "HEAD", env=env)
        _git(workspace, "add", "-A", ".", env=env)
        tree = _git(workspace, "write-tree", env=env).stdout.strip()
    head = _git(workspace, "rev-parse", "HEAD^{tree}").stdout.strip()
    return tree, head


def remote_tree(workspace: Path, url: str, branch: str, env: dict[str, str]) -> str | None:
    """The tree on the remote branch, or None when the branch does not exist."""
    listed = _git(workspace, "ls-remote", url, f"refs/heads/{branch}", env=env)
    if not listed.stdout.strip():
        return None
    _git(workspace, "fetch", "-q", "--no-tags", url, f"refs/heads/{branch}", env=env)
    return _git(workspace, "rev-parse", "FETCH_HEAD^{tree}").stdout.strip()


def push(workspace: Path, url: str, branch: str, message: str, token: str) -> dict[str, str]:
    """Push the changes to ``branch``; returns the action record (status, sha)."""
    tree, head_tree = worktree_tree(workspace)
    if tree == head_tree:
        return {"status": "no_changes", "branch": branch}
    env = auth_env(url, token)
    if remote_tree(workspace, url, branch, env) == tree:
        return {"status": "unchanged", "branch": branch}
    sha = _git(workspace, "commit-tree", tree, "-p", "HEAD", "-m", message, env=env).stdout
    sha = sha.strip()
    # holon/ branches belong to this skill: a rerun replaces its own earlier commit.
    force = "+" if branch.startswith("holon/") else ""
    done = _git(
        workspace, "push", "-q", url, f"{force}{sha}:refs/heads/{branch}", env=env, check=False
    )
    if done.returncode != 0:
        raise Fail(f"push to {branch} was rejected: {done.stderr.strip()[-500:]}")
    return {"status": "pushed", "branch": branch, "sha": sha}
