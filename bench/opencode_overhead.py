"""holon's overhead on OpenCode: the same scripted task, bare ``opencode run`` vs ``holon-agent``.

Same flags, model, generated config, run-local XDG homes and prompt (holon's system text
before the task) on both sides (see ``bench/_overhead.py`` for the method). OpenCode's start
is CPU-bound (seconds of JavaScript before its first model call), so on a shared machine
wall time mostly measures the neighbours: this bench also prints CPU time (user + sys of the
whole process tree), the figure to compare. Usage:
``uv run --frozen --no-sync python -m bench.opencode_overhead [RUNS]``.
"""

from __future__ import annotations

import os
import resource
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from holon_adapter_opencode import OpenCodeAdapter
from holon_adapter_opencode.home import config, write_home
from holon_conformance.provider import ScriptedProvider

from bench._overhead import GOAL, holon_run, new_task, timed
from holon_core.agent.prompt import CONTRACT
from holon_core.testing import Task
from holon_core.testing.agent_run import agent_env

MODEL = "anthropic/fake-model-1"
Sample = tuple[float, float]  # (wall seconds, CPU seconds)


def children_cpu() -> float:
    """User + sys seconds of every waited-for descendant so far (the engine's tree included)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


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


def sample(run: Callable[..., float], *args: object) -> Sample:
    before = children_cpu()
    elapsed = run(*args)
    return elapsed, children_cpu() - before


def line(label: str, samples: list[Sample]) -> str:
    wall = [w for w, _ in samples]
    cpu = [c for _, c in samples]
    return (
        f"{label:14s} median {statistics.median(wall) * 1000:7.0f} ms wall "
        f"(min {min(wall) * 1000:.0f}), cpu {statistics.median(cpu) * 1000:7.0f} ms "
        f"(min {min(cpu) * 1000:.0f})"
    )


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    binary = OpenCodeAdapter().locate_binary(agent_env())
    if binary is None:
        raise SystemExit("opencode is not installed: run `holon engines install opencode`")
    holon_env = {"HOLON_MODEL": MODEL}
    bare: list[Sample] = []
    holon: list[Sample] = []
    with ScriptedProvider("write-and-run") as server, tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        if runs > 1:  # one run is the smoke test's: it checks the bench works, not figures
            bare_run(binary, server, new_task(root / "warm-bare"))
            holon_run("opencode", server, new_task(root / "warm-holon"), holon_env)
        for i in range(runs):
            bare.append(sample(bare_run, binary, server, new_task(root / f"bare{i}")))
            task = new_task(root / f"h{i}")
            holon.append(sample(holon_run, "opencode", server, task, holon_env))
    b = statistics.median(w for w, _ in bare)
    h = statistics.median(w for w, _ in holon)
    bc = statistics.median(c for _, c in bare)
    hc = statistics.median(c for _, c in holon)
    print(f"runs: {runs} each, alternating; scenario write-and-run; opencode {binary}")
    print(line("bare opencode", bare))
    print(line("holon-agent", holon))
    print(f"overhead       {(h - b) * 1000:7.0f} ms wall, ratio {h / b:.3f}")
    print(f"overhead       {(hc - bc) * 1000:7.0f} ms cpu,  ratio {hc / bc:.3f}")


if __name__ == "__main__":
    main()
