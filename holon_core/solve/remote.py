"""Is the workspace a clone of the ref's repository? Compare its ``origin`` in every form.

https and http, ``git@host:owner/repo``, ``ssh://[user@]host[:port]/owner/repo`` and
``git://``, each with or without ``.git`` and a trailing slash; owner and repo compare without
case, the host must be the GitHub server's. A local path or ``file://`` origin (a mirror, or the
bare repository of an offline test) matches when it ends in ``owner/repo`` or ``owner/repo.git``.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from holon_core.errors import InputError
from holon_core.solve.ref import GitHubRef

_SCP = re.compile(r"^(?:[^@/]+@)?(?P<host>[^:/]+):(?P<path>[^/].*)$")


@dataclass(frozen=True)
class Remote:
    """Where ``origin`` points: a host (None for a local path) and the ``owner/repo`` path."""

    url: str
    host: str | None
    path: str

    def names(self) -> tuple[str, str] | None:
        parts = [p for p in self.path.strip("/").split("/") if p]
        if len(parts) < 2 or (self.host is not None and len(parts) != 2):
            return None
        return parts[-2].lower(), parts[-1].removesuffix(".git").lower()


def parse_remote(url: str) -> Remote:
    url = url.strip()
    if "://" in url:
        parts = urlsplit(url)
        host = None if parts.scheme == "file" else (parts.hostname or "").lower()
        return Remote(url, host, parts.path)
    scp = _SCP.match(url)
    if scp and not url.startswith(("/", ".")):
        return Remote(url, scp["host"].lower(), scp["path"])
    return Remote(url, None, url)


def origin_url(workspace: Path) -> str:
    done = subprocess.run(
        ["git", "-C", str(workspace), "remote", "get-url", "origin"],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise InputError(
            f"workspace {workspace} is not a git clone with an origin remote",
            hint="run holon solve in a clone of the repository (git clone URL), or pass "
            "--workspace DIR",
        )
    return done.stdout.strip()


def check_clone(workspace: Path, ref: GitHubRef, server_host: str) -> Remote:
    """The workspace's origin, when it is ``ref``'s repository; else a clear ``InputError``."""
    remote = parse_remote(origin_url(workspace))
    want = (ref.owner.lower(), ref.repo.lower())
    host_ok = remote.host is None or remote.host == server_host.lower()
    if not host_ok or remote.names() != want:
        raise InputError(
            f"workspace {workspace} is a clone of {remote.url}, not of {ref.full_name} on "
            f"{server_host}",
            hint="pass --workspace with a clone of that repository, or fix the ref",
        )
    return remote


def check_clean(workspace: Path) -> None:
    """Refuse uncommitted changes: ``publish.py`` commits the snapshot's whole working tree,
    so a local edit or an untracked file would be pushed with the fix, unseen in diff.patch."""
    done = subprocess.run(
        ["git", "-C", str(workspace), "status", "--porcelain=v1", "-z"],
        capture_output=True,
        text=True,
        check=False,
    )
    paths = [entry[3:] for entry in done.stdout.split("\0") if len(entry) > 3]
    if done.returncode != 0 or not paths:
        return
    named = ", ".join(paths[:5]) + (f" and {len(paths) - 5} more" if len(paths) > 5 else "")
    raise InputError(
        f"workspace {workspace} has uncommitted changes ({named}): the skill would push "
        "them with the fix",
        hint="commit them, or set them aside with git stash -u, then rerun",
    )


def check_head(workspace: Path, ref: GitHubRef, branch: str, sha: str) -> None:
    """A pull request is fixed on its own code: HEAD must hold the PR's head commit, so the
    engine sees the PR and ``publish.py`` can fast-forward the PR's branch."""
    done = subprocess.run(
        ["git", "-C", str(workspace), "merge-base", "--is-ancestor", sha or "-", "HEAD"],
        capture_output=True,
        check=False,
    )
    if done.returncode == 0:
        return
    raise InputError(
        f"workspace {workspace} is not at the head of pull request {ref} ({branch} at {sha[:12]})",
        hint=f"check it out first: git fetch origin {branch} && git checkout {branch}",
    )


def push_url(remote: Remote, ref: GitHubRef, server_url: str) -> str:
    """Where the skill pushes: a local origin as is, else https on the server with the token
    (the engine has no SSH keys: its HOME is run-local)."""
    if remote.host is None:
        return remote.url
    return f"{server_url.rstrip('/')}/{ref.full_name}.git"
