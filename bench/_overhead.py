"""Shared driver of the overhead benchmarks: one scripted task, bare engine vs holon-agent.

Both sides run the real pinned CLI against one scripted provider (write-and-run: three model
turns, a file write, a shell command) with a fresh task each time; one warm-up run each, then
the runs alternate so drift hits both equally. Wall time is process start to exit.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from holon_conformance.provider import ScriptedProvider

from holon_core.testing import Task, make_task
from holon_core.testing.agent_run import agent_argv, agent_env

GOAL = "Create hello.txt"
BareRun = Callable[[Path, ScriptedProvider, Task], float]


def new_task(root: Path) -> Task:
    return make_task(root, goal=GOAL, files={"README.md": "hi\n"})


def timed(
    argv: list[str], *, env: Mapping[str, str], cwd: Path | None = None, stdin: bytes = b""
) -> tuple[float, subprocess.CompletedProcess[bytes]]:
    """Run to completion with ``stdin`` fed then closed; (seconds, result)."""
    started = time.perf_counter()
    done = subprocess.run(
        argv, env=env, cwd=cwd, input=stdin, capture_output=True, check=False, timeout=120
    )
    return time.perf_counter() - started, done


def holon_run(engine: str, server: ScriptedProvider, task: Task, env: Mapping[str, str]) -> float:
    full_env = agent_env({**server.engine_env(engine), **env})
    elapsed, done = timed(agent_argv(task, engine), env=full_env)
    if done.returncode != 0:
        raise SystemExit(f"holon-agent failed ({done.returncode}): {done.stderr.decode()[-800:]}")
    return elapsed


def compare(engine: str, binary: Path, bare: BareRun, holon_env: Mapping[str, str]) -> None:
    """Print medians, minima, the overhead and the ratio for ``runs`` (argv[1], default 7)."""
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    bare_times: list[float] = []
    holon_times: list[float] = []
    with ScriptedProvider("write-and-run") as server, tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        if runs > 1:  # one run is the smoke test's: it checks the bench works, not figures
            bare(binary, server, new_task(root / "warm-bare"))  # page cache, first-run effects
            holon_run(engine, server, new_task(root / "warm-holon"), holon_env)
        for i in range(runs):
            bare_times.append(bare(binary, server, new_task(root / f"bare{i}")))
            holon_times.append(holon_run(engine, server, new_task(root / f"h{i}"), holon_env))
    b, h = statistics.median(bare_times), statistics.median(holon_times)
    print(f"runs: {runs} each, alternating; scenario write-and-run; {engine} {binary}")
    print(f"bare {engine:9s} median {b * 1000:7.0f} ms  (min {min(bare_times) * 1000:.0f})")
    print(f"holon-agent    median {h * 1000:7.0f} ms  (min {min(holon_times) * 1000:.0f})")
    print(f"overhead       {(h - b) * 1000:7.0f} ms  ratio {h / b:.3f}")
