"""holon's overhead on Gemini CLI: the same scripted task, bare ``gemini -p`` vs ``holon-agent``.

Both sides run the real pinned CLI against one scripted provider (write-and-run: three model
turns, a file write, a shell command) with the adapter's exact flags, settings.json, GEMINI.md,
model and attempt cap, a fresh run-local home and a fresh git workspace each time. Runs
alternate so drift hits both sides equally; wall time is process start to exit.

Usage: ``uv run --frozen --no-sync python bench/gemini_overhead.py [RUNS]``.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from holon_adapter_gemini import GeminiAdapter
from holon_adapter_gemini.home import forced_settings, write_home
from holon_conformance.provider import ScriptedProvider

from holon_core.agent.prompt import CONTRACT
from holon_core.testing import make_task
from holon_core.testing.agent_run import agent_env

MODEL = "gemini-bench-model"
GOAL = "Create hello.txt"
ATTEMPTS = "1"


def bare_run(binary: Path, server: ScriptedProvider, root: Path) -> float:
    task = make_task(root, goal=GOAL, files={"README.md": "hi\n"})
    home = root / "home"
    (home / "tmp").mkdir(parents=True)
    system = CONTRACT.format(workspace=task.workspace, output=task.output)
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "TMPDIR": str(home / "tmp")}
    env.update({"LANG": "C.UTF-8", "TERM": "dumb", "NO_COLOR": "1"})
    env.update(write_home(home, root, forced_settings(int(ATTEMPTS), None), system))
    env.update({"GEMINI_CLI_NO_RELAUNCH": "1", **server.engine_env("gemini")})
    argv = [str(binary), "-p", f"# Task\n\n{GOAL}\n", "--output-format", "stream-json"]
    argv += ["--yolo", "-m", MODEL]
    started = time.perf_counter()
    done = subprocess.run(
        argv, cwd=task.workspace, env=env, stdin=subprocess.DEVNULL,
        capture_output=True, check=False, timeout=120,
    )  # fmt: skip
    elapsed = time.perf_counter() - started
    if done.returncode != 0 or not (task.workspace / "hello.txt").exists():
        raise SystemExit(f"bare gemini failed ({done.returncode}): {done.stderr.decode()}")
    return elapsed


def holon_run(server: ScriptedProvider, root: Path) -> float:
    task = make_task(root, goal=GOAL, files={"README.md": "hi\n"})
    env = agent_env(server.engine_env("gemini"))
    env.update({"HOLON_MODEL": MODEL, "HOLON_GEMINI_MAX_ATTEMPTS": ATTEMPTS})
    argv = [sys.executable, "-m", "holon_core.agent", "--engine", "gemini"]
    argv += ["--input", str(task.input), "--workspace", str(task.workspace)]
    argv += ["--output", str(task.output), "--state", str(task.state)]
    started = time.perf_counter()
    done = subprocess.run(
        argv, env=env, stdin=subprocess.DEVNULL, capture_output=True, check=False, timeout=120
    )
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"holon-agent failed ({done.returncode}): {done.stderr.decode()}")
    return elapsed


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    binary = GeminiAdapter().locate_binary(agent_env())
    if binary is None:
        raise SystemExit("gemini is not installed: run `holon engines install gemini`")
    bare: list[float] = []
    holon: list[float] = []
    with ScriptedProvider("write-and-run") as server, tempfile.TemporaryDirectory() as tmp:
        bare_run(binary, server, Path(tmp) / "warm-bare")  # page cache, first-run effects
        holon_run(server, Path(tmp) / "warm-holon")
        for i in range(runs):
            bare.append(bare_run(binary, server, Path(tmp) / f"bare{i}"))
            holon.append(holon_run(server, Path(tmp) / f"holon{i}"))
    b, h = statistics.median(bare), statistics.median(holon)
    print(f"runs: {runs} each, alternating; scenario write-and-run; gemini {binary}")
    print(f"bare gemini   median {b * 1000:7.0f} ms  (min {min(bare) * 1000:.0f})")
    print(f"holon-agent   median {h * 1000:7.0f} ms  (min {min(holon) * 1000:.0f})")
    print(f"overhead      {(h - b) * 1000:7.0f} ms  ratio {h / b:.3f}")


if __name__ == "__main__":
    main()
