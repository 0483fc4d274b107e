"""Fixtures for the `holon run` tests: real workspaces, real git, `holon run` as a process."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil
import yaml

from holon_core.engine.binaries import managed_engine_dir

FAKE_AGENT = Path(__file__).with_name("fake_agent.py")
GIT_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
}
BINARY = bytes(range(256)) * 8
RESULT_KEYS = {
    "version", "run_id", "exit_code", "outcome", "reason", "error", "detail", "valid", "problems",
    "warnings", "engine", "agent_exit_code", "files_changed", "duration_seconds", "applied",
    "apply_error", "interrupted", "timed_out", "paths", "snapshot",
}  # fmt: skip
PATH_KEYS = {"run_dir", "workspace", "output_dir", "manifest", "patch", "summary", "events",
             "state", "report", "cassette"}  # fmt: skip


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args],
        cwd=cwd,
        env={"PATH": os.environ["PATH"], "HOME": "/nonexistent", **GIT_ENV},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def write(root: Path, rel: str, content: str | bytes, mode: int | None = None) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    if mode is not None:
        path.chmod(mode)


def make_workspace(root: Path, kind: str) -> Path:
    """A dirty git repo (staged, unstaged, untracked, ignored) or the same files, plain."""
    root.mkdir(parents=True)
    write(root, "README.md", "hello\n")
    write(root, "src/app.py", "print('app')\n")
    write(root, "tool.sh", "#!/bin/sh\necho hi\n", 0o644)
    write(root, "gone.txt", "to be deleted\n")
    write(root, "data/blob.bin", BINARY)
    write(root, ".gitignore", "*.log\n")
    if kind == "git":
        git(root, "init", "-q", "-b", "main")
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "initial")
        write(root, "README.md", "hello\nstaged line\n")
        git(root, "add", "README.md")
    write(root, "src/app.py", "print('app, dirty')\n")
    write(root, "notes.txt", "untracked before the run\n")
    write(root, "keep.log", "ignored\n")
    return root


#: The engine's change, as replay steps; ENGINE_EFFECT does the same to a copy by hand.
ENGINE_STEPS: list[dict[str, Any]] = [
    {"run": "cat README.md src/app.py notes.txt > {output}/seen.txt"},
    {"write": {"path": "src/app.py", "content": "print('changed by the engine')\n"}},
    {"write": {"path": "deep/new/file.txt", "content": "nested\n"}},
    {"delete": "gone.txt"},
    {"write": {"path": "tool.sh", "content": "#!/bin/sh\necho hi\n", "mode": "755"}},
    {"write": {"path": "data/blob.bin", "base64": "AAEC/w=="}},
    {"write": {"path": "debug.log", "content": "ignored, never in the patch\n"}},
    {"say": "done"},
]


def engine_effect(root: Path) -> None:
    write(root, "src/app.py", "print('changed by the engine')\n")
    write(root, "deep/new/file.txt", "nested\n")
    (root / "gone.txt").unlink()
    (root / "tool.sh").chmod(0o755)
    write(root, "data/blob.bin", b"\x00\x01\x02\xff")


def write_task(
    root: Path,
    steps: list[dict[str, Any]],
    *,
    artifacts: Sequence[dict[str, Any]] = (),
    extra: Mapping[str, Any] | None = None,
) -> Path:
    """spec.yaml (with a comment, to check the byte-for-byte copy) and context/replay.yaml."""
    root.mkdir(parents=True, exist_ok=True)
    spec: dict[str, Any] = {"version": "v1", "kind": "Holon", "metadata": {"name": "t"}}
    spec["goal"] = "Change the workspace"
    if artifacts:
        spec["output"] = {"artifacts": list(artifacts)}
    spec.update(extra or {})
    text = "# a comment holon must keep\n" + yaml.safe_dump(spec, sort_keys=False)
    (root / "spec.yaml").write_text(text, encoding="utf-8")
    (root / "context").mkdir(exist_ok=True)
    (root / "context" / "replay.yaml").write_text(yaml.safe_dump(steps), encoding="utf-8")
    return root / "spec.yaml"


def copy_tree(src: Path, dest: Path) -> None:
    subprocess.run(["cp", "-a", f"{src}/.", str(dest)], check=True)
    assert dest.is_dir()


@dataclass
class Ran:
    exit_code: int
    stdout: str
    stderr: str

    @property
    def json(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.stdout)
        return data


def base_env(tmp: Path) -> dict[str, str]:
    """What a user's shell might hold: PATH, a HOME of its own, where runs go."""
    home = tmp / "user-home"
    home.mkdir(exist_ok=True)
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "HOLON_RUNS_DIR": str(tmp / "runs"),
        "HOLON_ENGINES_DIR": str(managed_engine_dir()),
    }
    for name in ("LANG", "PYTHONPATH"):
        if name in os.environ:
            env[name] = os.environ[name]
    return env


def fake_agent_cmd() -> str:
    return f"{shutil.which(sys.executable) or sys.executable} {FAKE_AGENT}"


def holon_run(
    tmp: Path, args: Sequence[str], env: Mapping[str, str] | None = None, timeout: float = 120
) -> Ran:
    done = subprocess.run(
        [sys.executable, "-m", "holon_core.cli.main", "run", *args],
        env={**base_env(tmp), **(env or {})},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    return Ran(done.returncode, done.stdout, done.stderr)


def run_dirs(tmp: Path) -> list[Path]:
    runs = tmp / "runs"
    return sorted(runs.iterdir()) if runs.is_dir() else []


def processes_mentioning(text: str) -> list[str]:
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        cmdline = " ".join(proc.info["cmdline"] or [])
        if text in cmdline:
            found.append(f"{proc.pid}: {cmdline}")
    return found
