"""``python -m bench`` (``make bench``): every benchmark, one after the other."""

from __future__ import annotations

import subprocess
import sys

BENCHMARKS = (
    "probe_bench",
    "probe_cpu",
    "run_cpu",
    "agent_memory",
    "engines_scripted",
    "claude_overhead",
    "codex_overhead",
    "gemini_overhead",
    "opencode_overhead",
    "diff_bench",
    "snapshot_bench",
    "output_throughput",
    "trajectory_build",
)


def main() -> int:
    failed = 0
    for name in BENCHMARKS:
        print(f"\n=== bench.{name}", flush=True)
        failed += (
            subprocess.run([sys.executable, "-m", f"bench.{name}"], check=False).returncode != 0
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
