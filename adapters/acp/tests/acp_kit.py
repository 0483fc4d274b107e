"""Helpers and fixtures for the acp adapter tests: the scripted ACP agent, the real pinned
engines' ACP modes, the scripted model server and a process-leak guard. A uniquely named
module (not ``conftest``) so other packages' tests can run alongside.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import psutil

from holon_core.testing import AgentResult, Task, run_agent
from holon_core.testing.agent_run import finish_agent, processes_under, start_agent

AGENT = Path(__file__).with_name("scripted_agent.py")


def agent_command(behaviour: str) -> str:
    """``HOLON_ACP_COMMAND`` for the scripted agent doing ``behaviour``."""
    return shlex.join([sys.executable, str(AGENT), behaviour])


def scripted_env(behaviour: str, **extra: str) -> dict[str, str]:
    return {"HOLON_ACP_COMMAND": agent_command(behaviour), **extra}


def run_scripted(task: Task, behaviour: str, *, timeout: float = 90, **extra: str) -> AgentResult:
    return run_agent(task, "acp", env=scripted_env(behaviour, **extra), timeout=timeout)


def start_engine(task: Task, engine: str, env: Mapping[str, str]) -> subprocess.Popen[bytes]:
    return start_agent(task, engine, env=env)


finish = finish_agent


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


def events_of(result: AgentResult, kind: str) -> list[dict[str, Any]]:
    return [event for event in result.events if event["type"] == kind]
