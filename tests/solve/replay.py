"""Replay scripts that play the github-solve skill: its scripts run as the engine's tool calls."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import yaml

from .kit import SCRIPTS

if TYPE_CHECKING:
    from pathlib import Path

#: What the replay engine needs to see until every engine gets them from holon-agent.
PASS_ENV = "GITHUB_TOKEN,HOLON_INPUT_DIR,HOLON_WORKSPACE_DIR"

ISSUE_INTENT: dict[str, Any] = {
    "version": 1,
    "branch": {"name": "holon/issue-7", "message": "Fix spin() (#7)"},
    "pull_request": {"title": "Fix spin()", "body": "Fixes #7."},
    "comment": {"body": "Proposed a fix in {pr_url}."},
}


def script(
    path: Path, *, change: bool = True, intent: Any = None, files: dict[str, Any] | None = None
) -> dict[str, str]:
    """Write the replay script; returns the env that selects it."""
    steps: list[dict[str, Any]] = [{"run": f"python3 {SCRIPTS}/collect.py"}]
    if change:
        steps.append({"write": {"path": "widget.py", "content": "def spin():\n    return 1\n"}})
    for name, data in (files or {}).items():
        steps.append({"write": {"path": f"{{output}}/{name}", "content": json.dumps(data)}})
    text = intent if isinstance(intent, str) else json.dumps(intent or ISSUE_INTENT)
    steps.append({"write": {"path": "{output}/publish-intent.json", "content": text}})
    steps.append({"run": f"python3 {SCRIPTS}/publish.py"})
    steps.append({"say": "done"})
    path.write_text(yaml.safe_dump(steps))
    return {"HOLON_REPLAY_SCRIPT": str(path), "HOLON_REPLAY_PASS_ENV": PASS_ENV}
