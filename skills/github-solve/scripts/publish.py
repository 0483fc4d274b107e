"""Apply ``publish-intent.json``: push the branch, open or update the PR, comment, reply.

Usage: ``python3 scripts/publish.py [--intent FILE] [--request FILE] [--output DIR]
[--workspace DIR]``. A dry run (the request envelope's ``publish`` is not true) sends nothing
and lists what it would do. Every action is idempotent: the PR is found by its head branch,
comments and replies by a hidden marker, so a rerun after a partial failure duplicates nothing.
The outcome of each action goes to ``publish-result.json`` in the output dir.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ghlib import Api, Fail, env_dir, load_request, main_guard, token, write_json
from gitpush import push
from intent import load_intent

Record = dict[str, Any]


def marker(ref: str, what: str) -> str:
    return f"<!-- holon:github-solve {what} {ref} -->"


def plan(intent: dict[str, Any]) -> list[Record]:
    """The actions in the order they run, each with what it needs."""
    actions: list[Record] = []
    if "branch" in intent:
        actions.append({"action": "push", "branch": intent["branch"]["name"]})
    if "pull_request" in intent:
        actions.append({"action": "pull_request", "head": intent["branch"]["name"]})
    if "comment" in intent:
        actions.append({"action": "comment"})
    for reply in intent.get("review_replies", []):
        actions.append({"action": "review_reply", "comment_id": reply["comment_id"]})
    return actions


class Publisher:
    def __init__(self, api: Api, request: dict[str, Any], intent: dict[str, Any]) -> None:
        self.api, self.request, self.intent = api, request, intent
        self.ref = f"{request['repo']}#{request['number']}"
        self.number = int(request["number"])
        self.pr_url: str | None = None
        self.no_changes = False

    def push(self, record: Record, workspace: Path) -> None:
        url = self.request.get("push_url")
        if not isinstance(url, str) or not url:
            raise Fail("the request has no push_url; holon solve sets it from the origin remote")
        branch = self.intent["branch"]
        record |= push(workspace, url, branch["name"], branch["message"], token())
        self.no_changes = record["status"] == "no_changes"

    def pull_request(self, record: Record) -> None:
        if self.no_changes:
            record["status"] = "skipped: no changes to propose"
            return
        want = self.intent["pull_request"]
        owner = str(self.request["repo"]).split("/", maxsplit=1)[0]
        head = record["head"]
        body = f"{want['body']}\n\n{marker(self.ref, 'pr')}"
        found = self.api.get(f"/pulls?head={owner}:{head}&state=open")
        if found:
            pull = found[0]
            if (pull.get("title"), pull.get("body")) == (want["title"], body):
                record["status"] = "unchanged"
            else:
                pull = self.api.patch(
                    f"/pulls/{pull['number']}", {"title": want["title"], "body": body}
                )
                record["status"] = "updated"
        else:
            base = want.get("base") or self.request.get("base") or "main"
            new = {"title": want["title"], "head": head, "base": base, "body": body}
            pull = self.api.post("/pulls", new | {"draft": bool(want.get("draft"))})
            record["status"] = "created"
        record |= {"number": pull["number"], "url": pull.get("html_url")}
        self.pr_url = pull.get("html_url")

    def comment(self, record: Record) -> None:
        text = self.intent["comment"]["body"].replace("{pr_url}", self.pr_url or "(no PR)")
        body = f"{text}\n\n{marker(self.ref, 'comment')}"
        existing = self.api.get(f"/issues/{self.number}/comments?per_page=100")
        mine = [c for c in existing or [] if marker(self.ref, "comment") in (c.get("body") or "")]
        if mine and mine[0].get("body") == body:
            record |= {"status": "unchanged", "id": mine[0]["id"]}
        elif mine:
            done = self.api.patch(f"/issues/comments/{mine[0]['id']}", {"body": body})
            record |= {"status": "updated", "id": done["id"]}
        else:
            done = self.api.post(f"/issues/{self.number}/comments", {"body": body})
            record |= {"status": "created", "id": done["id"]}

    def review_reply(self, record: Record, existing: list[Record]) -> None:
        parent = record["comment_id"]
        tag = marker(self.ref, f"reply-to-{parent}")
        text = next(r["body"] for r in self.intent["review_replies"] if r["comment_id"] == parent)
        if any(
            c.get("in_reply_to_id") == parent and tag in (c.get("body") or "") for c in existing
        ):
            record["status"] = "unchanged"
            return
        path = f"/pulls/{self.number}/comments/{parent}/replies"
        done = self.api.post(path, {"body": f"{text}\n\n{tag}"})
        record |= {"status": "created", "id": done["id"]}


def apply(publisher: Publisher, actions: list[Record], workspace: Path) -> str | None:
    """Run the actions in order; the first failure stops the rest (recorded as not run)."""
    replies: list[Record] | None = None
    for index, record in enumerate(actions):
        try:
            kind = record["action"]
            if kind == "push":
                publisher.push(record, workspace)
            elif kind == "pull_request":
                publisher.pull_request(record)
            elif kind == "comment":
                publisher.comment(record)
            else:
                if replies is None:
                    replies = publisher.api.get(f"/pulls/{publisher.number}/comments?per_page=100")
                publisher.review_reply(record, replies or [])
        except Fail as exc:
            record |= {"status": "failed", "error": str(exc)}
            for later in actions[index + 1 :]:
                later["status"] = "not run: an earlier action failed"
            return str(exc)
    return None


def run() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--intent", type=Path, help="default: publish-intent.json in the output")
    parser.add_argument("--request", type=Path, help="request envelope (default: input dir)")
    parser.add_argument("--output", help="output dir (default: $HOLON_OUTPUT_DIR)")
    parser.add_argument("--workspace", help="the git workspace (default: the current dir)")
    args = parser.parse_args()
    out = env_dir("HOLON_OUTPUT_DIR", args.output)
    workspace = env_dir("HOLON_WORKSPACE_DIR", args.workspace, Path.cwd())
    request = load_request(args.request, None)
    result: Record = {"version": 1, "ref": f"{request['repo']}#{request['number']}"}
    result["dry_run"] = request.get("publish") is not True
    try:
        intent = load_intent(args.intent or out / "publish-intent.json")
    except Fail as exc:
        write_json(out / "publish-result.json", result | {"ok": False, "error": str(exc)})
        raise
    actions = plan(intent)
    error = None
    if result["dry_run"]:
        for record in actions:
            record["status"] = "planned"
    elif actions:
        error = apply(Publisher(Api(request), request, intent), actions, workspace)
    result |= {"ok": error is None, "actions": actions}
    if error:
        result["error"] = error
    write_json(out / "publish-result.json", result)
    mode = (
        "dry run (publishing not allowed by the request): nothing sent"
        if result["dry_run"]
        else "published"
    )
    print(f"{mode}; {len(actions)} action(s)")
    for record in actions:
        print(f"- {record['action']}: {record['status']}")
    if error:
        raise Fail(error)
    return 0


if __name__ == "__main__":
    raise SystemExit(main_guard(run))
