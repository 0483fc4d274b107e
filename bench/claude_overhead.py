"""holon's overhead on Claude Code: the same scripted task, bare ``claude`` vs ``holon-agent``.

Both sides run the real pinned CLI against one scripted provider (write-and-run: three model
turns, a file write, a shell command), with the same flags, model, retry cap and a fresh
run-local home each time; runs alternate so drift hits both equally. Wall time is measured
from process start to exit.

Usage: ``uv run --frozen --no-sync python bench/claude_overhead.py [RUNS]``.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from holon_adapter_claude import ClaudeAdapter
from holon_conformance.provider import ScriptedProvider

from holon_core.agent.prompt import CONTRACT
from holon_core.testing import make_task
from holon_core.testing.agent_run import agent_env

MODEL = "fake-model-1"
GOAL = "Create hello.txt"


def bare_run(binary: Path, server: ScriptedProvider, root: Path) -> float:
    task = make_task(root, goal=GOAL, files={"README.md": "hi\n"})
    home = root / "home"
    (home / ".claude").mkdir(parents=True)
    (home / "tmp").mkdir()
    system = home / "system.md"
    system.write_text(CONTRACT.format(workspace=task.workspace, output=task.output))
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "TMPDIR": str(home / "tmp"),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "NO_COLOR": "1",
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_MAX_RETRIES": "1",
        **server.engine_env("claude"),
    }
    if os.geteuid() == 0:
        env["IS_SANDBOX"] = "1"
    argv = [str(binary), "-p", "--output-format", "stream-json", "--verbose"]
    argv += ["--dangerously-skip-permissions", "--model", MODEL]
    argv += ["--append-system-prompt-file", str(system)]
    started = time.perf_counter()
    done = subprocess.run(
        argv, cwd=task.workspace, env=env, input=f"# Task\n\n{GOAL}\n".encode(),
        capture_output=True, check=False, timeout=120,
    )  # fmt: skip
    elapsed = time.perf_counter() - started
    if done.returncode != 0 or not (task.workspace / "hello.txt").exists():
        raise SystemExit(f"bare claude failed ({done.returncode}): {done.stderr.decode()}")
    return elapsed


def holon_run(server: ScriptedProvider, root: Path) -> float:
    task = make_task(root, goal=GOAL, files={"README.md": "hi\n"})
    env = agent_env(server.engine_env("claude"))
    env.update({"HOLON_MODEL": MODEL, "HOLON_CLAUDE_MAX_RETRIES": "1"})
    argv = [sys.executable, "-m", "holon_core.agent", "--engine", "claude"]
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
    binary = ClaudeAdapter().locate_binary(agent_env())
    if binary is None:
        raise SystemExit("claude is not installed: run `holon engines install claude`")
    bare: list[float] = []
    holon: list[float] = []
    with ScriptedProvider("write-and-run") as server, tempfile.TemporaryDirectory() as tmp:
        bare_run(binary, server, Path(tmp) / "warm-bare")  # page cache, first-run effects
        holon_run(server, Path(tmp) / "warm-holon")
        for i in range(runs):
            bare.append(bare_run(binary, server, Path(tmp) / f"bare{i}"))
            holon.append(holon_run(server, Path(tmp) / f"holon{i}"))
    b, h = statistics.median(bare), statistics.median(holon)
    print(f"runs: {runs} each, alternating; scenario write-and-run; claude {binary}")
    print(f"bare claude   median {b * 1000:7.0f} ms  (min {min(bare) * 1000:.0f})")
    print(f"holon-agent   median {h * 1000:7.0f} ms  (min {min(holon) * 1000:.0f})")
    print(f"overhead      {(h - b) * 1000:7.0f} ms  ratio {h / b:.3f}")


if __name__ == "__main__":
    main()
