"""The request envelope and the generated spec of a ``holon solve`` run (RFC-0003 4.1).

The envelope is ``context/request.json`` in the input dir: what to solve and which side
effects are allowed, never a materialized snapshot of the issue (the skill collects that).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from holon_core.solve.github_api import Server
from holon_core.solve.ref import GitHubRef, Kind

SKILL = "github-solve"
REQUEST_FILE = "context/request.json"


def envelope(
    ref: GitHubRef, kind: Kind, *, publish: bool, base: str, server: Server, push_url: str
) -> dict[str, Any]:
    return {
        "version": 1,
        "ref": str(ref),
        "repo": ref.full_name,
        "number": ref.number,
        "kind": kind,
        "publish": publish,
        "base": base,
        "server_url": server.url,
        "api_url": server.api_url,
        "push_url": push_url,
    }


def spec(request: dict[str, Any], title: str) -> dict[str, Any]:
    """A spec naming the builtin skill; the token is a declared secret, never a spec value."""
    pull = request["kind"] == "pull_request"
    what = "pull request" if pull else "issue"
    goal = (
        f"Use the {SKILL} skill to work on GitHub {what} {request['ref']} ({title!r}). The "
        f"request envelope is {REQUEST_FILE} in the input dir (HOLON_INPUT_DIR)."
    )
    artifacts = [{"path": "publish-intent.json", "required": True}]
    if pull:
        artifacts.append({"path": "pr-fix.json", "required": True})
    return {
        "version": "v1",
        "kind": "Holon",
        "metadata": {
            "name": f"solve-{request['repo'].replace('/', '-')}-{request['number']}",
            "skills": [SKILL],
        },
        "context": {
            "env": {
                "GITHUB_API_URL": request["api_url"],
                "GITHUB_SERVER_URL": request["server_url"],
            },
            "pass_env": ["GITHUB_TOKEN"],
        },
        "goal": {"description": goal, "issue_id": request["ref"]},
        "output": {"artifacts": artifacts},
    }


def write_task(where: Path, request: dict[str, Any], title: str) -> Path:
    """``spec.yaml`` and ``context/request.json`` in ``where``; returns the spec's path."""
    (where / "context").mkdir(parents=True, exist_ok=True)
    (where / REQUEST_FILE).write_text(json.dumps(request, indent=2) + "\n", encoding="utf-8")
    path = where / "spec.yaml"
    path.write_text(yaml.safe_dump(spec(request, title), sort_keys=False), encoding="utf-8")
    return path
