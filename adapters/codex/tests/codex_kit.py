"""Helpers shared by the codex adapter tests (a uniquely named module: every adapter's
tests directory has its own ``conftest``, so helpers are not imported from there)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from typing import Any

from holon_conformance.provider import ScriptedProvider

from holon_core.testing import AgentResult, Task, run_agent
from holon_core.testing.agent_run import agent_env, collect

MODEL = "gpt-5.5"
Provider = Callable[[str], ScriptedProvider]
ManifestCheck = Callable[[AgentResult], dict[str, Any]]


def run_env(server: ScriptedProvider | None, **extra: str) -> dict[str, str]:
    """Endpoint + fake key, the model, and short silence budget for tests."""
    env = server.engine_env("codex") if server is not None else {}
    env.update({"HOLON_MODEL": MODEL, "HOLON_SILENCE_TIMEOUT": "20"})
    env.update(extra)
    return env


def run_codex(
    task: Task, server: ScriptedProvider | None, *, timeout: float = 60.0, **extra: str
) -> AgentResult:
    return run_agent(task, "codex", env=run_env(server, **extra), timeout=timeout)


def start_codex(task: Task, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """``holon-agent --engine codex`` in the background (for signal tests)."""
    argv = [sys.executable, "-m", "holon_core.agent", "--engine", "codex"]
    argv += ["--input", str(task.input), "--workspace", str(task.workspace)]
    argv += ["--output", str(task.output), "--state", str(task.state)]
    return subprocess.Popen(
        argv,
        env=agent_env(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def finish(task: Task, proc: subprocess.Popen[bytes], timeout: float = 60.0) -> AgentResult:
    out, err = proc.communicate(timeout=timeout)
    return collect(task.output, proc.returncode, out.decode(), err.decode())
