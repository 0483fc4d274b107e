"""The benchmarks still run against today's adapters (they are not timed here: figures come
from `make bench`; this only keeps them from rotting, as an adapter change once did)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    "argv",
    [
        ["bench.probe_bench", "--runs", "1", "--engine", "replay"],
        ["bench.probe_cpu", "--runs", "1"],
        ["bench.run_cpu", "--runs", "1"],
        ["bench.agent_memory"],
        ["bench.claude_overhead", "1"],
        ["bench.codex_overhead", "1"],
        ["bench.gemini_overhead", "1"],
        ["bench.opencode_overhead", "1"],
        ["bench.acp_overhead", "1"],
        ["bench.output_throughput", "1", "--runs", "1"],
        ["bench.gateway_overhead", "--calls", "3", "--mib", "1", "--streams", "3"],
        ["bench.trajectory_build", "--runs", "1"],
    ],
    ids=lambda argv: argv[0],
)
def test_benchmark_runs(argv):
    command = [sys.executable, "-m", *argv]
    done = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ms" in done.stdout or "MiB" in done.stdout
