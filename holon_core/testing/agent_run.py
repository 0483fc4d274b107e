"""Run the real ``holon-agent`` as a subprocess and collect what it left behind."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil

from holon_core.testing.task import Task

#: Variables a test run inherits; everything else comes from the test's ``env``.
INHERITED = ("PATH", "LANG", "HOLON_ENGINES_DIR", "XDG_DATA_HOME", "SYSTEMROOT")


@dataclass
class AgentResult:
    exit_code: int
    stdout: str
    stderr: str
    output_dir: Path
    manifest: dict[str, Any] | None = None
    events: list[dict[str, Any]] = field(default_factory=list)

    @property
    def reason(self) -> str | None:
        return None if self.manifest is None else self.manifest["metadata"].get("reason")


def agent_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """A minimal environment: PATH and friends from the test process, plus ``env``."""
    base = {k: os.environ[k] for k in INHERITED if k in os.environ}
    if "HOLON_ENGINES_DIR" not in base:
        home = Path(os.environ.get("HOME", "~")).expanduser()
        base["HOLON_ENGINES_DIR"] = str(home / ".local" / "share" / "holon" / "engines")
    base.setdefault("HOME", os.environ.get("HOME", "/root"))
    base.update(env or {})
    return base


def agent_argv(task: Task, engine: str | None = "replay", args: Sequence[str] = ()) -> list[str]:
    """The ``holon-agent`` command line for ``task`` (the current interpreter's install)."""
    argv = [sys.executable, "-m", "holon_core.agent"]
    if engine is not None:
        argv += ["--engine", engine]
    argv += ["--input", str(task.input), "--workspace", str(task.workspace)]
    return [*argv, "--output", str(task.output), "--state", str(task.state), *args]


def run_agent(
    task: Task,
    engine: str | None = "replay",
    *,
    env: Mapping[str, str] | None = None,
    args: Sequence[str] = (),
    timeout: float = 120.0,
) -> AgentResult:
    done = subprocess.run(
        agent_argv(task, engine, args),
        env=agent_env(env),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    return collect(task.output, done.returncode, done.stdout, done.stderr)


def start_agent(
    task: Task,
    engine: str | None = "replay",
    *,
    env: Mapping[str, str] | None = None,
    args: Sequence[str] = (),
) -> subprocess.Popen[bytes]:
    """``holon-agent`` in the background, for tests that signal it mid-run."""
    return subprocess.Popen(
        agent_argv(task, engine, args),
        env=agent_env(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def finish_agent(task: Task, proc: subprocess.Popen[bytes], timeout: float = 60.0) -> AgentResult:
    """Wait for a :func:`start_agent` process and collect what it left."""
    out, err = proc.communicate(timeout=timeout)
    return collect(task.output, proc.returncode, out.decode(), err.decode())


def processes_under(root: Path) -> list[psutil.Process]:
    """Live processes whose cwd is inside ``root``: an engine or tool a test left running."""
    prefix = str(root.resolve())
    found = []
    for proc in psutil.process_iter(["pid", "cwd", "status"]):
        cwd = proc.info.get("cwd")
        if cwd and cwd.startswith(prefix) and proc.info.get("status") != psutil.STATUS_ZOMBIE:
            found.append(proc)
    return found


def collect(output: Path, exit_code: int, stdout: str, stderr: str) -> AgentResult:
    result = AgentResult(exit_code, stdout, stderr, output)
    manifest = output / "manifest.json"
    if manifest.is_file():
        result.manifest = json.loads(manifest.read_text(encoding="utf-8"))
    events = output / "evidence" / "events.ndjson"
    if events.is_file():
        result.events = [json.loads(line) for line in events.read_text().splitlines() if line]
    return result
