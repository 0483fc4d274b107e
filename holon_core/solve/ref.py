"""Parse what ``holon solve`` is given: ``owner/repo#N`` or an issue / pull request URL."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

from holon_core.errors import InputError

_NAME = r"[A-Za-z0-9](?:[A-Za-z0-9._-]{0,99})"
_SHORT = re.compile(rf"^(?P<owner>{_NAME})/(?P<repo>{_NAME})#(?P<number>[1-9][0-9]{{0,9}})$")
_PATH = re.compile(
    rf"^/(?P<owner>{_NAME})/(?P<repo>{_NAME})/(?P<kind>issues|pull|pulls)/"
    r"(?P<number>[1-9][0-9]{0,9})(?:/[a-z]*)?/?$"
)
_HINT = "write owner/repo#123, https://github.com/owner/repo/issues/123 or .../pull/123"

Kind = Literal["issue", "pull_request"]


@dataclass(frozen=True)
class GitHubRef:
    """One issue or pull request; ``kind`` is None when the ref does not say which."""

    owner: str
    repo: str
    number: int
    kind: Kind | None = None

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.repo}"

    def __str__(self) -> str:
        return f"{self.full_name}#{self.number}"


def parse_ref(text: str, server_host: str) -> GitHubRef:
    """``text`` as a ref; a URL must point at ``server_host`` (github.com or Enterprise)."""
    text = text.strip()
    short = _SHORT.match(text)
    if short:
        return GitHubRef(short["owner"], _strip_git(short["repo"]), int(short["number"]))
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InputError(f"ref {text!r} is not an issue or pull request", hint=_HINT)
    if parts.hostname.lower() != server_host.lower():
        raise InputError(
            f"ref {text!r} is on {parts.hostname}, not on {server_host}",
            hint="for GitHub Enterprise set GITHUB_SERVER_URL (and GITHUB_API_URL)",
        )
    match = _PATH.match(parts.path)
    if match is None:
        raise InputError(f"ref {text!r} is not an issue or pull request URL", hint=_HINT)
    kind: Kind = "issue" if match["kind"] == "issues" else "pull_request"
    return GitHubRef(match["owner"], _strip_git(match["repo"]), int(match["number"]), kind)


def _strip_git(name: str) -> str:
    return name.removesuffix(".git")
