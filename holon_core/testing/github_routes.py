"""The fake GitHub's REST routes: each method and path pattern, and what it does to the
in-memory repositories of :class:`holon_core.testing.github.FakeGitHub`."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable

    from holon_core.testing.github import FakeGitHub, Json, _Repo


class RouteError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


_REPO = r"/repos/(?P<repo>[^/]+/[^/]+)"


def _public(item: Json) -> Json:
    return {k: v for k, v in item.items() if k not in ("repo", "issue_number", "pull_number")}


@dataclass(frozen=True)
class _Req:
    """One routed request: the server, the repo, the path parameters, query, body, headers."""

    gh: FakeGitHub
    repo: _Repo
    params: dict[str, str]
    query: dict[str, str]
    body: Any
    accept: str

    @property
    def name(self) -> str:
        return self.params["repo"]

    @property
    def number(self) -> int:
        return int(self.params["number"])

    def field(self, *keys: str) -> Json:
        """The JSON body, with ``keys`` present as strings (else 422 like GitHub)."""
        body = self.body
        if not isinstance(body, dict) or any(not isinstance(body.get(k), str) for k in keys):
            raise RouteError(422, f"Invalid request: {', '.join(keys)} required")
        return body


def route(gh: FakeGitHub, method: str, path: str, req: Json) -> tuple[int, Any]:
    for (verb, pattern), action in _ROUTES.items():
        match = re.fullmatch(_REPO + pattern, path)
        if verb == method and match:
            params = match.groupdict()
            if params["repo"] not in gh.repos:
                raise RouteError(404, "Not Found")
            result: tuple[int, Any] = action(_Req(gh, gh.repos[params["repo"]], params, **req))
            return result
    raise RouteError(404, "Not Found")


def _get_repo(r: _Req) -> tuple[int, Any]:
    return 200, {"full_name": r.name, "default_branch": r.repo.default_branch}


def _get_issue(r: _Req) -> tuple[int, Any]:
    issue = r.repo.issues.get(r.number)
    if issue is None:
        raise RouteError(404, "Not Found")
    return 200, issue


def _list_comments(r: _Req) -> tuple[int, Any]:
    _get_issue(r)
    return 200, [_public(c) for c in r.gh.comments_of(r.name, r.number)]


def _add_comment(r: _Req) -> tuple[int, Any]:
    _get_issue(r)
    text = r.field("body")["body"]
    return 201, _public(r.gh.new_comment(r.name, r.number, text, r.gh.login))


def _edit_comment(r: _Req) -> tuple[int, Any]:
    comment = r.gh.comments.get(int(r.params["id"]))
    if comment is None or comment["repo"] != r.name:
        raise RouteError(404, "Not Found")
    comment["body"] = r.field("body")["body"]
    return 200, _public(comment)


def _list_pulls(r: _Req) -> tuple[int, Any]:
    pulls = list(r.repo.pulls.values())
    if "head" in r.query:
        pulls = [pr for pr in pulls if pr["head"]["label"] == r.query["head"]]
    state = r.query.get("state", "open")
    if state != "all":
        pulls = [pr for pr in pulls if pr["state"] == state]
    return 200, pulls


def _create_pull(r: _Req) -> tuple[int, Any]:
    data = r.field("title", "head", "base")
    head = data["head"].split(":")[-1]
    sha = r.repo.ref(head)
    if sha is None:
        raise RouteError(422, f"Validation Failed: head {head!r} does not exist")
    if any(pr["head"]["ref"] == head and pr["state"] == "open" for pr in r.repo.pulls.values()):
        raise RouteError(422, f"A pull request already exists for {head}.")
    number = r.gh.next_number(r.repo)
    pull = r.gh.pull_json(r.name, number, data["title"], head=head, base=data["base"], sha=sha)
    pull |= {"body": data.get("body") or "", "draft": bool(data.get("draft"))}
    r.repo.pulls[number] = pull
    return 201, pull


def _get_pull(r: _Req) -> tuple[int, Any]:
    pull = r.repo.pulls.get(r.number)
    if pull is None:
        raise RouteError(404, "Not Found")
    if "diff" in r.accept:
        return 200, r.repo.diffs.get(r.number, "")
    return 200, pull


def _edit_pull(r: _Req) -> tuple[int, Any]:
    pull = r.repo.pulls.get(r.number)
    if pull is None:
        raise RouteError(404, "Not Found")
    if not isinstance(r.body, dict):
        raise RouteError(422, "Invalid request")
    pull.update({k: r.body[k] for k in ("title", "body", "state") if k in r.body})
    return 200, pull


def _list_review_comments(r: _Req) -> tuple[int, Any]:
    if r.number not in r.repo.pulls:
        raise RouteError(404, "Not Found")
    key = (r.name, r.number)
    found = [c for c in r.gh.review_comments.values() if (c["repo"], c["pull_number"]) == key]
    return 200, [_public(c) for c in found]


def _reply(r: _Req) -> tuple[int, Any]:
    parent = r.gh.review_comments.get(int(r.params["id"]))
    if parent is None or (parent["repo"], parent["pull_number"]) != (r.name, r.number):
        raise RouteError(404, "Not Found")
    text = r.field("body")["body"]
    reply = dict(parent, id=r.gh.new_id(), body=text, in_reply_to_id=parent["id"])
    reply["user"] = {"login": r.gh.login}
    r.gh.review_comments[reply["id"]] = reply
    return 201, _public(reply)


def _reviews(r: _Req) -> tuple[int, Any]:
    if r.number not in r.repo.pulls:
        raise RouteError(404, "Not Found")
    return 200, r.repo.reviews.get(r.number, [])


def _checks(r: _Req) -> tuple[int, Any]:
    runs = r.repo.check_runs.get(r.params["sha"], [])
    return 200, {"total_count": len(runs), "check_runs": runs}


def _get_ref(r: _Req) -> tuple[int, Any]:
    sha = r.repo.ref(r.params["branch"])
    if sha is None:
        raise RouteError(404, "Not Found")
    return 200, {"ref": f"refs/heads/{r.params['branch']}", "object": {"sha": sha}}


def _create_ref(r: _Req) -> tuple[int, Any]:
    data = r.field("ref", "sha")
    name = data["ref"].removeprefix("refs/heads/")
    if r.repo.ref(name) is not None:
        raise RouteError(422, "Reference already exists")
    r.repo.refs[name] = data["sha"]
    return 201, {"ref": data["ref"], "object": {"sha": data["sha"]}}


_ROUTES: dict[tuple[str, str], Callable[[_Req], tuple[int, Any]]] = {
    ("GET", ""): _get_repo,
    ("GET", r"/issues/(?P<number>\d+)"): _get_issue,
    ("GET", r"/issues/(?P<number>\d+)/comments"): _list_comments,
    ("POST", r"/issues/(?P<number>\d+)/comments"): _add_comment,
    ("PATCH", r"/issues/comments/(?P<id>\d+)"): _edit_comment,
    ("GET", r"/pulls"): _list_pulls,
    ("POST", r"/pulls"): _create_pull,
    ("GET", r"/pulls/(?P<number>\d+)"): _get_pull,
    ("PATCH", r"/pulls/(?P<number>\d+)"): _edit_pull,
    ("GET", r"/pulls/(?P<number>\d+)/comments"): _list_review_comments,
    ("POST", r"/pulls/(?P<number>\d+)/comments/(?P<id>\d+)/replies"): _reply,
    ("GET", r"/pulls/(?P<number>\d+)/reviews"): _reviews,
    ("GET", r"/commits/(?P<sha>[0-9a-f]+)/check-runs"): _checks,
    ("GET", r"/git/ref/heads/(?P<branch>.+)"): _get_ref,
    ("POST", r"/git/refs"): _create_ref,
}
