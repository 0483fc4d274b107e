"""The host-side GitHub calls of ``holon solve``: is the ref there, readable with this token,
and is it an issue or a pull request (and for a pull request, its head)? They fail before
anything starts (no snapshot, no engine) with the reason: a rejected token, an unknown issue,
a rate limit, an unreachable server."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any

from holon_core.errors import HolonError, InputError
from holon_core.solve.ref import GitHubRef, Kind

TOKEN_VARS = ("GITHUB_TOKEN", "HOLON_GITHUB_TOKEN")


class GitHubAuthError(HolonError):
    """The GitHub token is missing, rejected or lacks access."""

    reason = "auth_failed"


@dataclass(frozen=True)
class Server:
    """The GitHub server: ``GITHUB_SERVER_URL`` and ``GITHUB_API_URL`` (Enterprise, tests)."""

    url: str
    api_url: str

    @property
    def host(self) -> str:
        return self.url.split("://", 1)[-1].split("/", 1)[0].split(":", 1)[0].lower()

    @classmethod
    def from_env(cls, env: dict[str, str]) -> Server:
        url = (env.get("GITHUB_SERVER_URL") or "https://github.com").rstrip("/")
        default_api = "https://api.github.com" if url == "https://github.com" else f"{url}/api/v3"
        return cls(url, (env.get("GITHUB_API_URL") or default_api).rstrip("/"))


def find_token(env: dict[str, str]) -> str:
    for name in TOKEN_VARS:
        value = env.get(name, "").strip()
        if value:
            return value
    raise GitHubAuthError(
        "no GitHub token: set GITHUB_TOKEN (or HOLON_GITHUB_TOKEN)",
        hint="a token that can read the repository; with --publish also push and write PRs",
        reason="missing_credentials",
    )


def lookup(server: Server, ref: GitHubRef, token: str) -> tuple[Kind, dict[str, Any]]:
    """GET the issue (GitHub serves pull requests there too); its kind and its JSON."""
    issue = _get(server, f"issues/{ref.number}", ref, token)
    kind: Kind = "pull_request" if "pull_request" in issue else "issue"
    return kind, issue


def pull_head(server: Server, ref: GitHubRef, token: str) -> tuple[str, str]:
    """A pull request's head: (branch, commit sha)."""
    head = _get(server, f"pulls/{ref.number}", ref, token).get("head") or {}
    return str(head.get("ref") or ""), str(head.get("sha") or "")


def _get(server: Server, path: str, ref: GitHubRef, token: str) -> dict[str, Any]:
    url = f"{server.api_url}/repos/{ref.full_name}/{path}"
    request = urllib.request.Request(url)
    request.add_header("Authorization", f"Bearer {token}")
    request.add_header("Accept", "application/vnd.github+json")
    request.add_header("User-Agent", "holon-solve")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            data = json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as exc:
        raise _http_error(exc, ref, server) from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise InputError(
            f"cannot reach the GitHub API at {server.api_url}: {exc}",
            hint="check the network, or GITHUB_API_URL for GitHub Enterprise",
        ) from None
    return data if isinstance(data, dict) else {}


def _http_error(exc: urllib.error.HTTPError, ref: GitHubRef, server: Server) -> HolonError:
    said = f"GitHub answered HTTP {exc.code} for {ref}"
    if exc.code == 401:
        return GitHubAuthError(f"{said}: the token was rejected", hint="set a valid GITHUB_TOKEN")
    if exc.code == 404:
        return InputError(
            f"{said}: no such issue or pull request, or the token cannot see {ref.full_name}",
            hint="check the ref, and that the token has access to the repository",
        )
    remaining = exc.headers.get("x-ratelimit-remaining") if exc.headers else None
    if exc.code in (403, 429) and remaining == "0":
        reset = str(exc.headers.get("x-ratelimit-reset", "?"))
        return HolonError(
            f"{said}: rate limited (resets at epoch {reset})",
            hint="wait, or use another token",
            reason="rate_limited",
        )
    if exc.code == 403:
        return GitHubAuthError(f"{said}: forbidden", hint="give the token access to the repo")
    return InputError(f"{said}", hint=f"check {server.api_url}")
