"""holon's overhead on Gemini CLI: the same scripted task, bare ``gemini -p`` vs ``holon-agent``.

Same flags, model, attempts cap, settings and GEMINI.md on both sides (see
``bench/_overhead.py`` for the method). Usage:
``uv run --frozen --no-sync python -m bench.gemini_overhead [RUNS]``.
"""

from __future__ import annotations

import os
from pathlib import Path

from holon_adapter_gemini import GeminiAdapter
from holon_adapter_gemini.home import SKIP_TRUST_FLAG, forced_settings, write_home
from holon_conformance.provider import ScriptedProvider

from bench._overhead import GOAL, compare, timed
from holon_core.agent.prompt import CONTRACT
from holon_core.testing import Task
from holon_core.testing.agent_run import agent_env

MODEL = "gemini-bench-model"
ATTEMPTS = "1"


def bare_run(binary: Path, server: ScriptedProvider, task: Task) -> float:
    home = task.root / "home"
    (home / "tmp").mkdir(parents=True)
    system = CONTRACT.format(workspace=task.workspace, output=task.output)
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "TMPDIR": str(home / "tmp")}
    env.update({"LANG": "C.UTF-8", "TERM": "dumb", "NO_COLOR": "1"})
    env.update(write_home(home, task.root, forced_settings(int(ATTEMPTS), None), system))
    env.update({"GEMINI_CLI_NO_RELAUNCH": "1", **server.engine_env("gemini")})
    argv = [str(binary), f"--prompt=# Task\n\n{GOAL}\n", "--output-format", "stream-json"]
    argv += ["--yolo", SKIP_TRUST_FLAG, "-m", MODEL]
    elapsed, done = timed(argv, env=env, cwd=task.workspace)
    if done.returncode != 0 or not (task.workspace / "hello.txt").exists():
        raise SystemExit(f"bare gemini failed ({done.returncode}): {done.stderr.decode()}")
    return elapsed


def main() -> None:
    binary = GeminiAdapter().locate_binary(agent_env())
    if binary is None:
        raise SystemExit("gemini is not installed: run `holon engines install gemini`")
    env = {"HOLON_MODEL": MODEL, "HOLON_GEMINI_MAX_ATTEMPTS": ATTEMPTS}
    compare("gemini", binary, bare_run, env)


if __name__ == "__main__":
    main()
