"""Fixtures for the claude adapter tests: the real pinned CLI, the scripted model server and
a process-leak guard. Nothing here fakes the engine; only the model's HTTP API is scripted.
"""

from __future__ import annotations

import json
import os
import subprocess
from typing import TYPE_CHECKING

import psutil
import pytest
from holon_conformance.provider import ScriptedProvider

from holon_core.testing import AgentResult, Task, run_agent
from holon_core.testing.agent_run import finish_agent, processes_under, start_agent

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from pathlib import Path

MODEL = "fake-model-1"


@pytest.fixture(scope="session")
def claude_binary(engine_binary: Callable[[str], Path]) -> Path:
    """The pinned ``claude``; a missing engine fails the test (never skips)."""
    return engine_binary("claude")


def run_env(server: ScriptedProvider, **extra: str) -> dict[str, str]:
    """Endpoint + fake key, a fixed model, and short retry/silence budgets for tests."""
    env = server.engine_env("claude")
    env.update({"HOLON_MODEL": MODEL, "HOLON_CLAUDE_MAX_RETRIES": "1"})
    env.update(extra)
    return env


def run_claude(
    task: Task, server: ScriptedProvider, *, timeout: float = 60.0, **extra: str
) -> AgentResult:
    return run_agent(task, "claude", env=run_env(server, **extra), timeout=timeout)


def start_claude(task: Task, env: Mapping[str, str]) -> subprocess.Popen[bytes]:
    """``holon-agent --engine claude`` in the background (for signal tests)."""
    return start_agent(task, "claude", env=env)


finish = finish_agent


def running(root: Path, word: str) -> bool:
    """Is a process whose command line contains ``word`` running inside ``root``?"""
    for proc in processes_under(root):
        try:
            if word in " ".join(proc.cmdline()):
                return True
        except psutil.Error:
            continue
    return False


def planted_home(root: Path, marker: str) -> Path:
    """A user HOME with Claude Code settings, instructions and a skill that must not leak."""
    claude = root / ".claude"
    (claude / "skills" / "planted-skill").mkdir(parents=True)
    (claude / "CLAUDE.md").write_text(f"Always mention {marker}-instructions.\n", "utf-8")
    settings = {"model": f"{marker}-settings-model"}
    (claude / "settings.json").write_text(json.dumps(settings) + "\n", encoding="utf-8")
    (claude / "skills" / "planted-skill" / "SKILL.md").write_text(
        f"---\nname: planted-skill\ndescription: {marker}-skill\n---\nbody\n", "utf-8"
    )
    return root


def bare_env(server: ScriptedProvider, home: Path) -> dict[str, str]:
    """The bare engine's environment as a user would run it (for control runs)."""
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "LANG": "C.UTF-8", "TERM": "dumb"}
    env.update(server.engine_env("claude"))
    env.update({"CLAUDE_CODE_MAX_RETRIES": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"})
    if os.geteuid() == 0:
        env["IS_SANDBOX"] = "1"
    return env


class ClaudeKit:
    """The helpers above as one fixture, so tests never import conftest."""

    run = staticmethod(run_claude)
    env = staticmethod(run_env)
    start = staticmethod(start_claude)
    finish = staticmethod(finish)
    processes_under = staticmethod(processes_under)
    running = staticmethod(running)
    planted_home = staticmethod(planted_home)
    bare_env = staticmethod(bare_env)


@pytest.fixture
def kit() -> type[ClaudeKit]:
    return ClaudeKit
