"""Fixtures for the opencode adapter tests: the real pinned CLI, the scripted model server
and a process-leak guard. Nothing here fakes the engine; only the model's HTTP API is scripted.
"""

from __future__ import annotations

import subprocess
import time
from typing import TYPE_CHECKING

import psutil
import pytest
from holon_conformance.provider import ScriptedProvider

from holon_core.testing import AgentResult, Task, run_agent
from holon_core.testing.agent_run import finish_agent, processes_under, start_agent

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

MODEL = "fake-model-1"


@pytest.fixture(scope="session")
def opencode_binary(engine_binary: Callable[[str], Path]) -> Path:
    """The pinned ``opencode``; a missing engine fails the test (never skips)."""
    return engine_binary("opencode")


def run_env(server: ScriptedProvider, **extra: str) -> dict[str, str]:
    """Endpoint + fake key, a fixed model, and one retry (OpenCode's backoff starts at 2 s)."""
    env = server.engine_env("opencode")
    env.update({"HOLON_MODEL": MODEL, "HOLON_OPENCODE_MAX_RETRIES": "1"})
    env.update(extra)
    return env


def run_opencode(task: Task, server: ScriptedProvider, **extra: str) -> AgentResult:
    return run_agent(task, "opencode", env=run_env(server, **extra), timeout=180)


def start_opencode(task: Task, server: ScriptedProvider) -> subprocess.Popen[bytes]:
    """``holon-agent --engine opencode`` in the background (for signal tests)."""
    return start_agent(task, "opencode", env=run_env(server))


def wait_for_process(root: Path, word: str, seconds: float = 120.0) -> bool:
    """Wait (bounded) until a process under ``root`` has ``word`` in its command line."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for proc in processes_under(root):
            try:
                if word in " ".join(proc.cmdline()):
                    return True
            except psutil.Error:
                continue
        time.sleep(0.1)
    return False


class OpenCodeKit:
    """The helpers above as one fixture, so tests never import conftest."""

    run = staticmethod(run_opencode)
    start = staticmethod(start_opencode)
    finish = staticmethod(finish_agent)
    processes_under = staticmethod(processes_under)
    wait_for_process = staticmethod(wait_for_process)


@pytest.fixture
def kit() -> type[OpenCodeKit]:
    return OpenCodeKit
