"""``holon report`` as a user runs it: the real CLI in a process, with the test's own HOME."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from holon_core.testing.task import committed_repo
from tests.runner import kit as runner_kit


def holon_report(tmp_path: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "holon_core", "report", *map(str, args)],
        env=runner_kit.base_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def workspace(tmp_path: Path) -> Path:
    """A git workspace with one committed README."""
    return committed_repo(tmp_path / "ws", {"README.md": "greetings\n"})


def replay_run(
    tmp_path: Path, steps: list[dict[str, Any]], spec: dict[str, Any], *args: str
) -> dict[str, Any]:
    """``holon run --engine replay --json`` of ``steps`` on :func:`workspace`: its JSON."""
    task = tmp_path / "task"
    (task / "context").mkdir(parents=True)
    (task / "context" / "replay.yaml").write_text(yaml.safe_dump(steps))
    (task / "spec.yaml").write_text(yaml.safe_dump({"version": "v1", "kind": "Holon", **spec}))
    argv = [str(task / "spec.yaml"), "--workspace", str(workspace(tmp_path)), "--engine", "replay"]
    ran = runner_kit.holon_run(tmp_path, [*argv, "--json", *args])
    result: dict[str, Any] = json.loads(ran.stdout)
    assert result["outcome"] == "success", ran.stderr
    return result
