"""Helpers and fixtures for the gemini adapter tests: the real pinned CLI, the scripted model
server and a process-leak guard. Nothing here fakes the engine; only the model's HTTP API is
scripted. A uniquely named module (not ``conftest``) so other packages' tests can run alongside.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import psutil
import pytest
from holon_adapter_gemini import GeminiAdapter
from holon_conformance.provider import ScriptedProvider, parse_scenario

from holon_core.testing import AgentResult, Task, make_task, run_agent
from holon_core.testing.agent_run import agent_env, collect

MODEL = "gemini-test-model"


@pytest.fixture(scope="session")
def gemini_binary() -> Path:
    """The pinned ``gemini``; a missing engine fails the test (never skips)."""
    binary = GeminiAdapter().locate_binary(agent_env())
    if binary is None:
        pytest.fail("gemini is not installed: run `holon engines install gemini`")
    return binary


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
    argv = [sys.executable, "-m", "holon_core.agent", "--engine", "gemini"]
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


def processes_under(root: Path) -> list[psutil.Process]:
    """Live processes whose cwd is inside ``root`` (the engine and the tools it started)."""
    found = []
    prefix = str(root.resolve())
    for proc in psutil.process_iter(["pid", "cwd", "status"]):
        cwd = proc.info.get("cwd")
        if cwd and cwd.startswith(prefix) and proc.info.get("status") != psutil.STATUS_ZOMBIE:
            found.append(proc)
    return found


@pytest.fixture
def task(tmp_path: Path) -> Iterator[Task]:
    """A small git workspace; after the test no process may still run inside it."""
    made = make_task(tmp_path / "task", goal="Create hello.txt", files={"README.md": "hi\n"})
    yield made
    leftovers = processes_under(tmp_path)
    for proc in leftovers:
        proc.kill()
    assert not leftovers, f"processes survived the run: {[p.cmdline() for p in leftovers]}"


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
