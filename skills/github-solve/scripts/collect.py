"""Gather the GitHub context of one issue or pull request into ``$HOLON_OUTPUT_DIR/context/``.

Usage: ``python3 scripts/collect.py [REF] [--request FILE] [--output DIR]``. Without REF the
ref comes from the request envelope ``$HOLON_INPUT_DIR/context/request.json``. Prints which
case it is (``case: issue`` or ``case: pull_request``); ``context/index.json`` lists the files.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ghlib import Api, env_dir, load_request, main_guard, write_json


def collect(api: Api, number: int, out: Path) -> dict[str, Any]:
    """Fetch everything the case needs; return the index."""
    issue = api.get(f"/issues/{number}")
    kind = "pull_request" if isinstance(issue, dict) and "pull_request" in issue else "issue"
    files: dict[str, str] = {}

    def save(name: str, data: Any, what: str) -> None:
        if isinstance(data, str):
            (out / name).write_text(data, encoding="utf-8")
        else:
            write_json(out / name, data)
        files[name] = what

    out.mkdir(parents=True, exist_ok=True)
    save("issue.json", issue, "the issue (or the PR as an issue): title, body, labels")
    save("comments.json", api.get(f"/issues/{number}/comments"), "conversation comments")
    index: dict[str, Any] = {"kind": kind, "number": number, "title": issue.get("title", "")}
    if kind == "pull_request":
        pull = api.get(f"/pulls/{number}")
        save("pull.json", pull, "the pull request: head and base branches, state")
        save(
            "review_comments.json",
            api.get(f"/pulls/{number}/comments"),
            "review comments (reply to them by id)",
        )
        save("reviews.json", api.get(f"/pulls/{number}/reviews"), "reviews and their state")
        save("pr.diff", api.get(f"/pulls/{number}", "application/vnd.github.diff"), "the diff")
        sha = pull.get("head", {}).get("sha", "")
        if sha:
            save("checks.json", api.get(f"/commits/{sha}/check-runs"), "check run results")
        index["head"] = pull.get("head", {}).get("ref")
        index["base"] = pull.get("base", {}).get("ref")
    index["files"] = files
    return index


def run() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ref", nargs="?", help="owner/repo#N or an issue/PR URL")
    parser.add_argument("--request", type=Path, help="request envelope (default: input dir)")
    parser.add_argument("--output", help="output dir (default: $HOLON_OUTPUT_DIR)")
    args = parser.parse_args()
    request = load_request(args.request, args.ref)
    out = env_dir("HOLON_OUTPUT_DIR", args.output) / "context"
    api = Api(request)
    index = collect(api, int(request["number"]), out)
    index |= {"ref": f"{request['repo']}#{request['number']}", "repo": request["repo"]}
    index["publish"] = request.get("publish") is True
    if index["kind"] == "issue":
        index["base"] = request.get("base")
    write_json(out / "index.json", index)
    print(f"case: {index['kind']}")
    print(f"{index['ref']}: {index['title']}")
    print(f"context: {out} ({len(index['files'])} files, see index.json)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main_guard(run))
