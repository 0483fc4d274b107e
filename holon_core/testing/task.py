"""Build an RFC-0002 task layout (input/spec.yaml, context, workspace, output) on disk."""

from __future__ import annotations

import hashlib
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

GIT_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_AUTHOR_NAME": "holon-test",
    "GIT_AUTHOR_EMAIL": "test@holon.invalid",
    "GIT_COMMITTER_NAME": "holon-test",
    "GIT_COMMITTER_EMAIL": "test@holon.invalid",
}


@dataclass(frozen=True, slots=True)
class Task:
    root: Path
    input: Path
    workspace: Path
    output: Path
    state: Path

    @property
    def spec(self) -> Path:
        return self.input / "spec.yaml"


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args],
        cwd=cwd,
        env={**os.environ, **GIT_ENV},
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def committed_repo(path: Path, files: dict[str, str]) -> Path:
    """A git repository at ``path`` (branch ``main``) whose one commit holds ``files``."""
    path.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(content, encoding="utf-8")
    git(path, "init", "-q", "-b", "main")
    git(path, "add", "-A")
    git(path, "commit", "-q", "--allow-empty", "-m", "initial")
    return path


def make_task(
    root: Path,
    *,
    goal: str = "Write hello.txt",
    files: dict[str, str | bytes] | None = None,
    git_repo: bool = True,
    spec_extra: dict[str, Any] | None = None,
    replay: list[Any] | None = None,
    context: dict[str, str] | None = None,
) -> Task:
    """A task under ``root``; ``files`` are committed when ``git_repo`` is true."""
    task = Task(root, root / "input", root / "workspace", root / "output", root / "state")
    for path in (task.input, task.workspace, task.output, task.state):
        path.mkdir(parents=True, exist_ok=True)
    spec: dict[str, Any] = {"version": "v1", "kind": "Holon", "metadata": {"name": "test"}}
    spec["goal"] = goal
    spec.update(spec_extra or {})
    task.spec.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    for name, content in (files or {}).items():
        target = task.workspace / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")
    if git_repo:
        git(task.workspace, "init", "-q", "-b", "main")
        git(task.workspace, "add", "-A")
        git(task.workspace, "commit", "-q", "--allow-empty", "-m", "initial")
    ctx = task.input / "context"
    for name, text in (context or {}).items():
        (ctx / name).parent.mkdir(parents=True, exist_ok=True)
        (ctx / name).write_text(text, encoding="utf-8")
    if replay is not None:
        ctx.mkdir(parents=True, exist_ok=True)
        (ctx / "replay.yaml").write_text(yaml.safe_dump(replay, sort_keys=False), "utf-8")
    return task


def snapshot_tree(root: Path) -> dict[str, str]:
    """Hash of every file (and symlink target) under ``root``, ``.git`` included."""
    out: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_symlink():
            out[rel] = f"link:{path.readlink()}"
        elif path.is_file():
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            out[rel] = f"{oct(path.stat().st_mode)}:{digest}"
        elif path.is_dir():
            out[rel + "/"] = "dir"
    return out
