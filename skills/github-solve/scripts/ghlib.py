"""Shared helpers of the github-solve scripts: the request envelope, paths, the REST client.

Python standard library only: the scripts run with whatever ``python3`` the engine finds.
Every failure is a ``Fail`` whose message says what went wrong and what to do next.
"""

from __future__ import annotations

import json
import os
import re
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

DEFAULT_API = "https://api.github.com"
USER_AGENT = "holon-github-solve/1"
_REF = re.compile(r"^(?P<repo>[\w.-]+/[\w.-]+)#(?P<number>[0-9]+)$")
_URL = re.compile(r"^https?://[^/]+/(?P<repo>[\w.-]+/[\w.-]+)/(issues|pull)/(?P<number>[0-9]+)")


class Fail(Exception):
    """A clear, final error: printed as ``github-solve: error: ...``, exit code 1."""


def main_guard(run: Any) -> int:
    try:
        code: int = run()
    except Fail as exc:
        sys.stderr.write(f"github-solve: error: {exc}\n")
        return 1
    return code


def env_dir(name: str, flag: str | None, fallback: Path | None = None) -> Path:
    value = flag or os.environ.get(name)
    if value:
        return Path(value)
    if fallback is not None:
        return fallback
    raise Fail(f"{name} is not set; pass the directory explicitly (see SKILL.md)")


def parse_ref(text: str) -> tuple[str, int]:
    """``owner/repo#N`` or an issue/PR URL -> (``owner/repo``, N)."""
    text = text.strip()
    match = _REF.match(text) or _URL.match(text)
    if match is None:
        raise Fail(f"ref {text!r} is not owner/repo#N or an issue/pull URL")
    return match["repo"], int(match["number"])


def load_request(path: Path | None, ref: str | None) -> dict[str, Any]:
    """The request envelope (``context/request.json`` in the input dir), or one made from a
    ref given on the command line (never published: ``publish`` is false)."""
    if ref:
        repo, number = parse_ref(ref)
        return {"version": 1, "ref": f"{repo}#{number}", "repo": repo, "number": number}
    if path is None:
        path = env_dir("HOLON_INPUT_DIR", None) / "context" / "request.json"
    request = read_json(path, "the request envelope")
    if not isinstance(request, dict) or not isinstance(request.get("repo"), str):
        raise Fail(f"{path}: not a github-solve request (needs repo, number)")
    if type(request.get("number")) is not int:
        raise Fail(f"{path}: number must be an integer")
    return request


def read_json(path: Path, what: str) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise Fail(f"{what} {path} does not exist") from None
    except (OSError, ValueError) as exc:
        raise Fail(f"{what} {path} is not valid JSON: {exc}") from None


def write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)


def token() -> str:
    value = os.environ.get("GITHUB_TOKEN", "").strip()
    if not value:
        raise Fail("GITHUB_TOKEN is not set; holon solve passes it (set GITHUB_TOKEN on the host)")
    return value


class Api:
    """A small GitHub REST client: JSON in and out, errors turned into clear messages."""

    def __init__(self, request: dict[str, Any]) -> None:
        base = os.environ.get("GITHUB_API_URL") or request.get("api_url") or DEFAULT_API
        self.base = str(base).rstrip("/")
        self.token = token()
        self.repo = str(request["repo"])
        self.calls = 0

    def get(self, path: str, accept: str = "application/vnd.github+json") -> Any:
        return self.call("GET", path, None, accept)

    def post(self, path: str, body: dict[str, Any]) -> Any:
        return self.call("POST", path, body)

    def patch(self, path: str, body: dict[str, Any]) -> Any:
        return self.call("PATCH", path, body)

    def call(
        self,
        method: str,
        path: str,
        body: dict[str, Any] | None,
        accept: str = "application/vnd.github+json",
    ) -> Any:
        url = f"{self.base}/repos/{self.repo}{path}"
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(url, data=data, method=method)
        req.add_header("Authorization", f"Bearer {self.token}")
        req.add_header("Accept", accept)
        req.add_header("User-Agent", USER_AGENT)
        req.add_header("X-GitHub-Api-Version", "2022-11-28")
        if data is not None:
            req.add_header("Content-Type", "application/json")
        self.calls += 1
        try:
            with urllib.request.urlopen(req, timeout=60) as resp:
                raw = resp.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as exc:
            raise Fail(describe_http(exc, method, url)) from None
        except (urllib.error.URLError, OSError) as exc:
            raise Fail(f"cannot reach the GitHub API at {self.base}: {exc}") from None
        if "json" not in accept:
            return raw
        return json.loads(raw) if raw else None


def describe_http(exc: urllib.error.HTTPError, method: str, url: str) -> str:
    """What an HTTP error means for the user, and what to do about it."""
    try:
        message = json.loads(exc.read() or b"{}").get("message") or ""
    except (ValueError, AttributeError):
        message = ""
    said = f"{method} {url}: HTTP {exc.code} {message}".rstrip()
    remaining = exc.headers.get("x-ratelimit-remaining") if exc.headers else None
    if exc.code == 401:
        return f"{said}: GitHub rejected the token; set a valid GITHUB_TOKEN"
    if exc.code in (403, 429) and (remaining == "0" or "rate limit" in message.lower()):
        reset = exc.headers.get("x-ratelimit-reset", "?")
        return f"{said}: rate limited until epoch {reset}; wait, or use another token"
    if exc.code == 403:
        return f"{said}: the token lacks permission for this repository"
    if exc.code == 404:
        return f"{said}: not found; check the ref, or that the token can see the repository"
    if exc.code == 422:
        return f"{said}: GitHub refused the request as invalid"
    return said
