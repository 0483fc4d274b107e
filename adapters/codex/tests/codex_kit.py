"""Helpers shared by the codex adapter tests (a uniquely named module: every adapter's
tests directory has its own ``conftest``, so helpers are not imported from there)."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Mapping
from typing import Any

from holon_conformance.provider import ScriptedProvider

from holon_core.testing import AgentResult, Task, run_agent
from holon_core.testing.agent_run import finish_agent, start_agent

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


def start_codex(task: Task, env: Mapping[str, str]) -> subprocess.Popen[bytes]:
    """``holon-agent --engine codex`` in the background (for signal tests)."""
    return start_agent(task, "codex", env=env)


finish = finish_agent
