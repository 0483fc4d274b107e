"""holon-agent's own resident memory (budget: 60 MB beside the engine).

Runs the hello example through `holon-agent` with the replay engine and with the real Claude
Code CLI against the scripted server, sampling the agent process alone (not the engine) every
10 ms. Usage: uv run --frozen --no-sync python bench/agent_memory.py
"""

from __future__ import annotations

import subprocess
import tempfile
import time
from pathlib import Path

import psutil
from holon_conformance.provider import ScriptedProvider, load_scenario

from holon_core.testing import make_task
from holon_core.testing.agent_run import agent_argv, agent_env

STEPS = [
    {"write": {"path": "hello.txt", "content": "hello from holon\n"}},
    {"run": "cat hello.txt"},
    {"say": "done"},
]


def peak_rss_mib(argv: list[str], env: dict[str, str]) -> float:
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    agent = psutil.Process(proc.pid)
    peak = 0
    while proc.poll() is None:
        try:
            peak = max(peak, agent.memory_info().rss)
        except psutil.Error:
            break
        time.sleep(0.01)
    return peak / 2**20


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        task = make_task(root / "replay", replay=STEPS)
        mib = peak_rss_mib(agent_argv(task, "replay"), agent_env())
        print(f"holon-agent (replay)  peak RSS {mib:5.1f} MiB (budget 60)")
        with ScriptedProvider(load_scenario("write-and-run")) as server:
            task = make_task(root / "claude", goal="Create hello.txt")
            env = agent_env(server.engine_env("claude"))
            mib = peak_rss_mib(agent_argv(task, "claude"), env)
            print(f"holon-agent (claude)  peak RSS {mib:5.1f} MiB (budget 60)")


if __name__ == "__main__":
    main()
