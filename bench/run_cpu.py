"""A short run's CPU: ``holon-agent`` on the example task (replay engine, no model) beside
``python -c pass``.

What a run costs holon itself, where no engine or model hides it: the agent's imports, the
room, the baseline, the record. Thousands of such runs make up most of the test suite's CPU,
and every batch cell and serve turn pays the same start. CPU is user + sys of the whole run
(the agent reaps the room, the engine and git, so RUSAGE_CHILDREN holds them all), not wall:
the machines are shared. ``--before DIR`` times the run a second time with an older
checkout's packages (see ``bench/probe_cpu.py`` for making DIR), in the same alternating loop.

Run: uv run --frozen --no-sync python -m bench.run_cpu [--runs N] [--before DIR]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from bench.probe_cpu import EXAMPLE, cpu_of


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--before", type=Path, help="an older checkout's packages, timed too")
    args = parser.parse_args()
    env = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/root")}
    envs = {"holon-agent run": env}
    if args.before is not None:
        envs["holon-agent run (before)"] = env | {"PYTHONPATH": str(args.before.resolve())}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)  # the working directory too: `python -m` puts it first on sys.path
        count = 0

        def run(run_env: dict[str, str]) -> float:
            nonlocal count
            count += 1
            ws = root / f"ws{count}"
            shutil.copytree(EXAMPLE / "workspace", ws)
            argv = [sys.executable, "-m", "holon_core.agent", "--engine", "replay"]
            argv += ["--input", str(EXAMPLE), "--workspace", str(ws)]
            argv += ["--output", str(root / f"out{count}"), "--state", str(root / f"st{count}")]
            spent = cpu_of(argv, run_env, root)
            manifest = root / f"out{count}" / "manifest.json"
            assert '"outcome": "success"' in manifest.read_text(), f"run {count} failed"
            return spent

        times: dict[str, list[float]] = {"python -c pass": []}
        times.update({label: [] for label in envs})
        for run_env in envs.values():  # each must work before it is timed
            run(run_env)
        for _ in range(args.runs):
            times["python -c pass"].append(cpu_of([sys.executable, "-c", "pass"], env, root))
            for label, run_env in envs.items():
                times[label].append(run(run_env))
    for kind, pick in (("median", statistics.median), ("best", min)):
        base = pick(times["python -c pass"])
        for label, samples in times.items():
            ours = pick(samples)
            ratio = "" if label == "python -c pass" else f"  ({ours / base:.1f}x)"
            print(f"{label:26} {kind:6} CPU {ours * 1000:6.1f} ms{ratio}")


if __name__ == "__main__":
    main()
