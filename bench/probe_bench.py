"""Probe latency: `holon-agent --probe` wall time (budget 100 ms), beside bare interpreter start.

Run: uv run --frozen --no-sync python bench/probe_bench.py [--runs N] [--engine NAME ...]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "hello"


def timed(argv: list[str], env: dict[str, str] | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(argv, capture_output=True, check=False, env=env)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--engine", action="append", default=None)
    args = parser.parse_args()
    engines = args.engine or ["replay", "claude", "codex", "gemini"]
    agent = str(Path(sys.executable).with_name("holon-agent"))
    with tempfile.TemporaryDirectory() as out:
        bare = [timed([sys.executable, "-c", "pass"]) for _ in range(args.runs)]
        print(f"python startup (floor)      median {statistics.median(bare) * 1000:6.1f} ms")
        for engine in engines:
            env = {
                "PATH": "/usr/bin:/bin",
                "HOME": str(Path.home()),
                "ANTHROPIC_API_KEY": "x",
                "OPENAI_API_KEY": "x",
                "GEMINI_API_KEY": "x",
            }
            argv = [
                agent,
                "--probe",
                "--engine",
                engine,
                "--input",
                str(EXAMPLE),
                "--workspace",
                str(EXAMPLE / "workspace"),
                "--output",
                out,
            ]
            times = [timed(argv, env) for _ in range(args.runs)]
            median = statistics.median(times) * 1000
            verdict = "within" if median < 100 else "OVER"
            print(
                f"holon-agent --probe {engine:7s} median {median:6.1f} ms ({verdict} 100 ms budget)"
            )


if __name__ == "__main__":
    main()
