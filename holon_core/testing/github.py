"""A fake GitHub REST API on 127.0.0.1 for offline tests of GitHub flows (``github-solve``).

In-memory issues, comments, pull requests, reviews, review comments, check runs and refs;
every call is recorded; the token is checked; failures (401/403/404/422, rate limits) can be
injected per route. Pair it with a local bare repository as the git push remote and the whole
issue-to-PR flow runs without a network::

    with FakeGitHub(token="ghs_test") as gh:
        gh.add_issue("acme/widgets", 7, title="Crash on start")
        env = {"GITHUB_API_URL": gh.url, "GITHUB_TOKEN": "ghs_test"}
"""

from __future__ import annotations

import itertools
import json
import re
import subprocess
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

from holon_core.testing.github_routes import RouteError, route

if TYPE_CHECKING:
    pass

Json = dict[str, Any]


@dataclass(frozen=True)
class Call:
    """One request the server received."""

    method: str
    path: str
    query: dict[str, str]
    body: Any
    authorized: bool


@dataclass
class Failure:
    """An injected response: served for matching requests ``times`` times (None: always)."""

    method: str
    pattern: re.Pattern[str]
    status: int
    message: str
    times: int | None
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class _Repo:
    default_branch: str = "main"
    issues: dict[int, Json] = field(default_factory=dict)
    pulls: dict[int, Json] = field(default_factory=dict)
    diffs: dict[int, str] = field(default_factory=dict)
    reviews: dict[int, list[Json]] = field(default_factory=dict)
    refs: dict[str, str] = field(default_factory=dict)
    check_runs: dict[str, list[Json]] = field(default_factory=dict)
    #: The bare repository that plays this repo's git remote: its branches are the refs.
    git_dir: Path | None = None

    def ref(self, branch: str) -> str | None:
        if self.git_dir is not None:
            done = subprocess.run(
                ["git", "--git-dir", str(self.git_dir), "rev-parse", "--verify", "-q",
                 f"refs/heads/{branch}"],
                capture_output=True, text=True, check=False,
            )  # fmt: skip
            return done.stdout.strip() or None
        return self.refs.get(branch)


class FakeGitHub:
    """The fake server; ``url`` is what ``GITHUB_API_URL`` should be."""

    def __init__(self, token: str = "ghs_fake_token", login: str = "holon-test") -> None:
        self.token = token
        self.login = login
        self.calls: list[Call] = []
        self.repos: dict[str, _Repo] = {}
        self.comments: dict[int, Json] = {}  # issue comments by id
        self.review_comments: dict[int, Json] = {}
        self._failures: list[Failure] = []
        self._ids = itertools.count(1001)
        self._lock = threading.RLock()
        self._server: ThreadingHTTPServer | None = None

    # -- lifecycle --------------------------------------------------------------------------
    def start(self) -> FakeGitHub:
        handler = type("Handler", (_Handler,), {"github": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeGitHub:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        assert self._server is not None, "start() the server first"
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    # -- state ------------------------------------------------------------------------------
    def repo(self, full_name: str, git_dir: Path | None = None) -> _Repo:
        """The repo (created on first use); ``git_dir``: its bare repository (the remote)."""
        with self._lock:
            repo = self.repos.setdefault(full_name, _Repo())
            if git_dir is not None:
                repo.git_dir = git_dir
            return repo

    def add_issue(self, full_name: str, number: int, title: str, body: str = "") -> Json:
        issue = {"number": number, "title": title, "body": body, "state": "open"}
        issue |= {"user": {"login": "reporter"}, "labels": []}
        self.repo(full_name).issues[number] = issue
        return issue

    def add_comment(self, full_name: str, number: int, body: str, login: str = "reporter") -> Json:
        return self.new_comment(full_name, number, body, login)

    def add_pull(
        self,
        full_name: str,
        number: int,
        title: str,
        *,
        head: str,
        base: str = "main",
        head_sha: str = "0" * 40,
        diff: str = "",
    ) -> Json:
        repo = self.repo(full_name)
        pull = self.pull_json(full_name, number, title, head=head, base=base, sha=head_sha)
        repo.pulls[number] = pull
        repo.issues[number] = {
            "number": number,
            "title": title,
            "body": "",
            "state": "open",
            "user": {"login": "author"},
            "labels": [],
            "pull_request": {"url": f"{self.url}/repos/{full_name}/pulls/{number}"},
        }
        repo.diffs[number] = diff
        return pull

    def add_review_comment(
        self, full_name: str, number: int, body: str, path: str, line: int = 1
    ) -> Json:
        comment: Json = {
            "id": next(self._ids),
            "body": body,
            "path": path,
            "line": line,
            "in_reply_to_id": None,
            "user": {"login": "reviewer"},
            "pull_number": number,
            "repo": full_name,
        }
        self.review_comments[comment["id"]] = comment
        return comment

    def add_review(self, full_name: str, number: int, body: str, state: str) -> Json:
        review = {"id": next(self._ids), "body": body, "state": state}
        self.repo(full_name).reviews.setdefault(number, []).append(review)
        return review

    def add_check_run(self, full_name: str, sha: str, name: str, conclusion: str) -> None:
        run = {"name": name, "status": "completed", "conclusion": conclusion}
        self.repo(full_name).check_runs.setdefault(sha, []).append(run)

    def fail(
        self,
        method: str,
        path_regex: str,
        status: int,
        *,
        message: str = "injected failure",
        times: int | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        """Answer matching requests with ``status`` (``times`` times, None: every time)."""
        self._failures.append(
            Failure(method, re.compile(path_regex), status, message, times, headers or {})
        )

    def rate_limit(self, path_regex: str = ".*", times: int | None = None) -> None:
        reset = str(int(time.time()) + 3600)
        headers = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": reset}
        self.fail(
            "*", path_regex, 403, message="API rate limit exceeded", times=times, headers=headers
        )

    def writes(self) -> list[Call]:
        """Every call that would change something (not GET/HEAD)."""
        return [c for c in self.calls if c.method not in ("GET", "HEAD")]

    def pulls_of(self, full_name: str) -> list[Json]:
        return list(self.repo(full_name).pulls.values())

    def comments_of(self, full_name: str, number: int) -> list[Json]:
        key = (full_name, number)
        return [c for c in self.comments.values() if (c["repo"], c["issue_number"]) == key]

    # -- helpers the routes (github_routes.py) use ------------------------------------------
    def pull_json(
        self, full_name: str, number: int, title: str, *, head: str, base: str, sha: str
    ) -> Json:
        owner = full_name.split("/", maxsplit=1)[0]
        return {
            "number": number,
            "title": title,
            "body": "",
            "state": "open",
            "draft": False,
            "html_url": f"https://github.test/{full_name}/pull/{number}",
            "head": {"ref": head, "sha": sha, "label": f"{owner}:{head}"},
            "base": {"ref": base},
            "user": {"login": self.login},
        }

    def new_comment(self, full_name: str, number: int, body: str, login: str) -> Json:
        comment: Json = {
            "id": next(self._ids),
            "body": body,
            "user": {"login": login},
            "repo": full_name,
            "issue_number": number,
            "html_url": f"https://github.test/{full_name}/issues/{number}#comment",
        }
        self.comments[comment["id"]] = comment
        return comment

    def _injected(self, method: str, path: str) -> Failure | None:
        for failure in self._failures:
            if failure.method in ("*", method) and failure.pattern.search(path):
                if failure.times is not None:
                    if failure.times <= 0:
                        continue
                    failure.times -= 1
                return failure
        return None

    def next_number(self, repo: _Repo) -> int:
        """The number GitHub gives a new issue or pull request (they share one sequence)."""
        return max([0, *repo.issues, *repo.pulls]) + 1

    def new_id(self) -> int:
        """A new comment's or review's id (one sequence across the server, as GitHub's)."""
        return next(self._ids)


class _Handler(BaseHTTPRequestHandler):
    github: FakeGitHub
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass  # quiet in tests

    def do_GET(self) -> None:
        self._serve("GET")

    def do_POST(self) -> None:
        self._serve("POST")

    def do_PATCH(self) -> None:
        self._serve("PATCH")

    def _serve(self, method: str) -> None:
        gh = self.github
        split = urlsplit(self.path)
        query = {k: v[-1] for k, v in parse_qs(split.query).items()}
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", "replace")
        auth = self.headers.get("Authorization", "")
        authorized = auth in (f"Bearer {gh.token}", f"token {gh.token}")
        with gh._lock:
            gh.calls.append(Call(method, split.path, query, body, authorized))
            failure = gh._injected(method, split.path)
            if failure is not None:
                self._json(failure.status, {"message": failure.message}, failure.headers)
                return
            if not authorized:
                self._json(401, {"message": "Bad credentials"})
                return
            try:
                accept = self.headers.get("Accept") or ""
                req = {"query": query, "body": body, "accept": accept}
                status, payload = route(gh, method, split.path, req)
            except RouteError as exc:
                self._json(exc.status, {"message": str(exc)})
                return
        if isinstance(payload, str):
            self._send(status, payload.encode(), "text/x-diff", {})
        else:
            self._json(status, payload)

    def _json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self._send(status, data, "application/json", headers or {})

    def _send(self, status: int, data: bytes, kind: str, headers: dict[str, str]) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)
