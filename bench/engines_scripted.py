"""Wall time and peak memory of one scripted write-and-run per engine, bare CLI, no holon.

    uv run --frozen --no-sync python bench/engines_scripted.py [--runs 3] [--json]

Peak memory is the largest sum of RSS over the engine's whole process tree, sampled from
/proc every 10 ms (Codex runs a node wrapper plus a Rust binary; Gemini a node process).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import psutil
from holon_conformance.direct import ENGINES, direct_launch
from holon_conformance.provider import ScriptedProvider

from holon_core.hooks.manager import load_plugins


def tree_rss(proc: psutil.Process) -> int:
    total = 0
    try:
        procs = [proc, *proc.children(recursive=True)]
    except psutil.Error:
        return 0
    for p in procs:
        with contextlib.suppress(psutil.Error):
            total += p.memory_info().rss
    return total


def one_run(engine: str, binary: Path) -> tuple[float, int, int]:
    with tempfile.TemporaryDirectory(prefix=f"bench-{engine}-") as tmp:
        root = Path(tmp)
        workspace, home = root / "ws", root / "home"
        workspace.mkdir()
        home.mkdir()
        with ScriptedProvider("write-and-run") as provider:
            launch = direct_launch(engine, binary, "Create hello.txt.", home, provider)
            started = time.perf_counter()
            popen = subprocess.Popen(
                launch.argv,
                env=launch.env,
                cwd=workspace,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            proc = psutil.Process(popen.pid)
            peak = 0
            while popen.poll() is None:
                peak = max(peak, tree_rss(proc))
                time.sleep(0.01)
            wall = time.perf_counter() - started
        ok = (workspace / "hello.txt").read_text() == "hello from holon\n"
        if popen.returncode != 0 or not ok:
            raise SystemExit(f"{engine}: scripted run failed (exit {popen.returncode})")
        return wall, peak, popen.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results: dict[str, dict[str, Any]] = {}
    plugins = load_plugins()
    for engine in ENGINES:
        binary = plugins.get_engine(engine).locate_binary(os.environ)
        if binary is None:
            raise SystemExit(f"{engine} not installed: run `holon engines install`")
        one_run(engine, binary)  # warm-up: page cache, first-run setup
        runs = [one_run(engine, binary) for _ in range(args.runs)]
        walls = [r[0] for r in runs]
        results[engine] = {
            "runs_s": [round(w, 3) for w in walls],
            "median_wall_s": round(statistics.median(walls), 3),
            "peak_rss_mb": round(max(r[1] for r in runs) / 2**20, 1),
        }
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print(f"{'engine':<8} {'median wall':>12} {'peak tree RSS':>14}  runs")
        for engine, r in results.items():
            runs_text = " / ".join(f"{w:.2f}" for w in r["runs_s"])
            wall, rss = r["median_wall_s"], r["peak_rss_mb"]
            print(f"{engine:<8} {wall:>10.2f} s {rss:>11.0f} MB  {runs_text}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
