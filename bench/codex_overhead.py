"""holon's overhead on Codex: the same scripted task, bare ``codex exec`` vs ``holon-agent``.

Both sides run the real pinned CLI against one scripted provider (write-and-run: three model
turns, an apply_patch, a shell command) with the adapter's exact flags, provider config,
model and retry caps, a fresh run-local CODEX_HOME and a fresh git workspace each time.
Runs alternate so drift hits both sides equally; wall time is process start to exit.

Usage: ``uv run --frozen --no-sync python bench/codex_overhead.py [RUNS]``.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from holon_adapter_codex import CodexAdapter
from holon_adapter_codex.home import prepare_home
from holon_adapter_codex.launch import (
    DEFAULT_MODEL,
    DEFAULT_REQUEST_RETRIES,
    DEFAULT_STREAM_RETRIES,
)
from holon_conformance.provider import ScriptedProvider

from holon_core.testing import make_task
from holon_core.testing.agent_run import agent_env

GOAL = "Create hello.txt"


def bare(binary: Path, server: ScriptedProvider, root: Path) -> float:
    task = make_task(root, goal=GOAL, files={"README.md": "hi\n"})
    home = root / "home"
    endpoint = server.engine_env("codex")
    codex_home = prepare_home(
        home,
        home / "tmp",
        endpoint,
        instructions="",
        request_retries=DEFAULT_REQUEST_RETRIES,
        stream_retries=DEFAULT_STREAM_RETRIES,
    )
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "TMPDIR": str(home / "tmp")}
    env.update({"LANG": "C.UTF-8", "TERM": "dumb", "NO_COLOR": "1"})
    env.update({"CODEX_HOME": str(codex_home), **endpoint})
    argv = [str(binary), "exec", "--json", "--skip-git-repo-check"]
    argv += ["--dangerously-bypass-approvals-and-sandbox", "--disable", "plugins"]
    argv += ["--disable", "remote_plugin", "--disable", "apps", "-c", "analytics.enabled=false"]
    argv += ["-m", DEFAULT_MODEL, "-C", str(task.workspace), "-"]
    start = time.perf_counter()
    done = subprocess.run(
        argv, input=GOAL.encode(), env=env, capture_output=True, check=False, cwd=task.workspace
    )
    elapsed = time.perf_counter() - start
    if done.returncode != 0 or b"turn.completed" not in done.stdout:
        raise SystemExit(f"bare codex failed: {done.stderr.decode()[-500:]}")
    return elapsed


def holon(server: ScriptedProvider, root: Path) -> float:
    task = make_task(root, goal=GOAL, files={"README.md": "hi\n"})
    argv = [sys.executable, "-m", "holon_core.agent", "--engine", "codex"]
    argv += ["--input", str(task.input), "--workspace", str(task.workspace)]
    argv += ["--output", str(task.output), "--state", str(task.state)]
    env = agent_env({**server.engine_env("codex"), "HOLON_MODEL": DEFAULT_MODEL})
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, stdin=subprocess.DEVNULL, capture_output=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"holon-agent failed: {done.stderr.decode()[-500:]}")
    return elapsed


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    binary = CodexAdapter().locate_binary(agent_env())
    if binary is None:
        raise SystemExit("codex is not installed: run `holon engines install codex`")
    bare_times: list[float] = []
    holon_times: list[float] = []
    with ScriptedProvider("write-and-run") as server, tempfile.TemporaryDirectory() as tmp:
        bare(binary, server, Path(tmp) / "warm")  # page cache for the 294 MB binary
        for i in range(runs):
            bare_times.append(bare(binary, server, Path(tmp) / f"bare{i}"))
            holon_times.append(holon(server, Path(tmp) / f"holon{i}"))
    b, h = statistics.median(bare_times), statistics.median(holon_times)

    def listed(times: list[float]) -> str:
        return ", ".join(f"{t:.2f}" for t in times)

    print(f"runs={runs} scenario=write-and-run engine=codex model={DEFAULT_MODEL}")
    print(f"bare codex exec   median {b * 1000:.0f} ms  ({listed(bare_times)})")
    print(f"holon-agent       median {h * 1000:.0f} ms  ({listed(holon_times)})")
    print(f"overhead          {((h - b) * 1000):.0f} ms, ratio {h / b:.2f}x")


if __name__ == "__main__":
    main()
