"""holon's overhead on OpenCode: the same scripted task, bare ``opencode run`` vs ``holon-agent``.

Same flags, model, generated config, run-local XDG homes and prompt (holon's system text
before the task) on both sides (see ``bench/_overhead.py`` for the method). Usage:
``uv run --frozen --no-sync python -m bench.opencode_overhead [RUNS]``.
"""

from __future__ import annotations

import os
from pathlib import Path

from holon_adapter_opencode import OpenCodeAdapter
from holon_adapter_opencode.home import config, write_home
from holon_conformance.provider import ScriptedProvider

from bench._overhead import GOAL, compare, timed
from holon_core.agent.prompt import CONTRACT
from holon_core.testing import Task
from holon_core.testing.agent_run import agent_env

MODEL = "anthropic/fake-model-1"


def bare_run(binary: Path, server: ScriptedProvider, task: Task) -> float:
    home = task.root / "home"
    (home / "tmp").mkdir(parents=True)
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "TMPDIR": str(home / "tmp")}
    env.update({"LANG": "C.UTF-8", "TERM": "dumb", "NO_COLOR": "1"})
    env.update(server.engine_env("opencode"))
    env.update(write_home(home, config(MODEL, server.url, None), env["PATH"]))
    system = CONTRACT.format(workspace=task.workspace, output=task.output)
    argv = [str(binary), "run", "--format", "json", "--print-logs", "--log-level", "WARN"]
    argv += ["--pure", "--title", "holon", "-m", MODEL, "--", f"{system}\n\n# Task\n\n{GOAL}\n"]
    elapsed, done = timed(argv, env=env, cwd=task.workspace)
    if done.returncode != 0 or not (task.workspace / "hello.txt").exists():
        raise SystemExit(f"bare opencode failed ({done.returncode}): {done.stderr.decode()}")
    return elapsed


def main() -> None:
    binary = OpenCodeAdapter().locate_binary(agent_env())
    if binary is None:
        raise SystemExit("opencode is not installed: run `holon engines install opencode`")
    compare("opencode", binary, bare_run, {"HOLON_MODEL": MODEL})


if __name__ == "__main__":
    main()
