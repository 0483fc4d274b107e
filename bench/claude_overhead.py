"""holon's overhead on Claude Code: the same scripted task, bare ``claude`` vs ``holon-agent``.

Same flags, model, retry cap, system text and a fresh run-local home on both sides (see
``bench/_overhead.py`` for the method). Usage:
``uv run --frozen --no-sync python -m bench.claude_overhead [RUNS]``.
"""

from __future__ import annotations

import os
from pathlib import Path

from holon_adapter_claude import ClaudeAdapter
from holon_conformance.provider import ScriptedProvider

from bench._overhead import GOAL, compare, timed
from holon_core.agent.prompt import CONTRACT
from holon_core.testing import Task
from holon_core.testing.agent_run import agent_env

MODEL = "fake-model-1"


def bare_run(binary: Path, server: ScriptedProvider, task: Task) -> float:
    home = task.root / "home"
    (home / ".claude").mkdir(parents=True)
    (home / "tmp").mkdir()
    system = home / "system.md"
    system.write_text(CONTRACT.format(workspace=task.workspace, output=task.output))
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "TMPDIR": str(home / "tmp")}
    env.update({"LANG": "C.UTF-8", "TERM": "dumb", "NO_COLOR": "1"})
    env.update({"CLAUDE_CONFIG_DIR": str(home / ".claude"), "DISABLE_AUTOUPDATER": "1"})
    env.update({"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "CLAUDE_CODE_MAX_RETRIES": "1"})
    env.update(server.engine_env("claude"))
    if os.geteuid() == 0:
        env["IS_SANDBOX"] = "1"
    argv = [str(binary), "-p", "--output-format", "stream-json", "--verbose"]
    argv += ["--dangerously-skip-permissions", "--model", MODEL]
    argv += ["--append-system-prompt-file", str(system)]
    elapsed, done = timed(argv, env=env, cwd=task.workspace, stdin=f"# Task\n\n{GOAL}\n".encode())
    if done.returncode != 0 or not (task.workspace / "hello.txt").exists():
        raise SystemExit(f"bare claude failed ({done.returncode}): {done.stderr.decode()}")
    return elapsed


def main() -> None:
    binary = ClaudeAdapter().locate_binary(agent_env())
    if binary is None:
        raise SystemExit("claude is not installed: run `holon engines install claude`")
    compare("claude", binary, bare_run, {"HOLON_MODEL": MODEL, "HOLON_CLAUDE_MAX_RETRIES": "1"})


if __name__ == "__main__":
    main()
