"""Helpers and fixtures for the gemini adapter tests: the real pinned CLI, the scripted model
server and a process-leak guard. Nothing here fakes the engine; only the model's HTTP API is
scripted. A uniquely named module (not ``conftest``) so other packages' tests can run alongside.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from holon_conformance.provider import ScriptedProvider, parse_scenario

from holon_core.testing import AgentResult, Task, run_agent
from holon_core.testing.agent_run import finish_agent, start_agent

MODEL = "gemini-test-model"


@pytest.fixture(scope="session")
def gemini_binary(engine_binary: Callable[[str], Path]) -> Path:
    """The pinned ``gemini``; a missing engine fails the test (never skips)."""
    return engine_binary("gemini")


@pytest.fixture
def provider(gemini_binary: Path) -> Iterator[Callable[[Any], ScriptedProvider]]:
    """``provider("write-and-run")`` (or a scenario dict) starts a scripted model server."""
    started: list[ScriptedProvider] = []

    def start(scenario: Any) -> ScriptedProvider:
        loaded = parse_scenario(scenario, "inline") if isinstance(scenario, dict) else scenario
        server = ScriptedProvider(loaded).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


def run_env(server: ScriptedProvider, **extra: str) -> dict[str, str]:
    """Endpoint + fake key, a fixed model, one attempt and a short silence budget."""
    env = server.engine_env("gemini")
    env.update({"HOLON_MODEL": MODEL, "HOLON_GEMINI_MAX_ATTEMPTS": "1"})
    env.update(extra)
    return env


def run_gemini(
    task: Task, server: ScriptedProvider, *, args: tuple[str, ...] = (), **extra: str
) -> AgentResult:
    return run_agent(task, "gemini", env=run_env(server, **extra), args=args, timeout=90)


def start_gemini(task: Task, env: Mapping[str, str]) -> subprocess.Popen[bytes]:
    """``holon-agent --engine gemini`` in the background (for signal tests)."""
    return start_agent(task, "gemini", env=env)


finish = finish_agent


def write_skill(root: Path, name: str, description: str, body: str) -> Path:
    skill = root / name
    skill.mkdir(parents=True)
    text = f"---\nname: {name}\ndescription: {description}\n---\n{body}\n"
    (skill / "SKILL.md").write_text(text, encoding="utf-8")
    return skill


def planted_home(root: Path, marker: str) -> Path:
    """A user HOME whose ``~/.gemini`` would visibly change a run if it were read."""
    gemini = root / ".gemini"
    gemini.mkdir(parents=True)
    settings = {
        "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}},
        "general": {"maxAttempts": 1},
        "tools": {"exclude": ["write_file"]},
    }
    (gemini / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    (gemini / "GEMINI.md").write_text(f"Always mention {marker}-instructions.\n", "utf-8")
    write_skill(gemini / "skills", "planted-skill", f"{marker}-skill", "planted body")
    return root
