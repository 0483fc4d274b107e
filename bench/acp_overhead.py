"""The ACP path's cost: one scripted task through an ACP profile and its direct adapter.

    uv run --frozen --no-sync python -m bench.acp_overhead [RUNS] [--pair acp-gemini:gemini]

Both sides are the real ``holon-agent`` running the same pinned CLI against one scripted
provider (write-and-run), with the same model, attempts cap and home: ``acp-gemini`` runs
``gemini --acp`` behind the bridge (a second Python process speaking ACP), ``gemini`` runs
``gemini -p`` directly. One warm-up each, then alternating runs. Wall time is process start to
exit; CPU is user + system time of holon-agent and everything it started (``RUSAGE_CHILDREN``),
so the bridge's interpreter and the SDK's import count on the ACP side.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import tempfile
from collections.abc import Mapping
from pathlib import Path

from holon_conformance.provider import ScriptedProvider

from bench._overhead import new_task, timed
from holon_core.testing import Task
from holon_core.testing.agent_run import agent_argv, agent_env

SETTINGS = {
    "gemini": {"HOLON_MODEL": "gemini-bench-model", "HOLON_GEMINI_MAX_ATTEMPTS": "1"},
    "opencode": {"HOLON_MODEL": "fake-model-1", "HOLON_OPENCODE_MAX_RETRIES": "1"},
    "claude": {"HOLON_MODEL": "claude-sonnet-4-5"},
    "codex": {"HOLON_MODEL": "gpt-5.5"},
}


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def one_run(
    engine: str, server: ScriptedProvider, task: Task, env: Mapping[str, str]
) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one ``holon-agent --engine ENGINE`` run."""
    before = children_cpu()
    elapsed, done = timed(
        agent_argv(task, engine), env=agent_env({**server.engine_env(engine), **env})
    )
    cpu = children_cpu() - before
    if done.returncode != 0 or not (task.workspace / "hello.txt").exists():
        raise SystemExit(f"{engine} failed ({done.returncode}): {done.stderr.decode()[-800:]}")
    return elapsed, cpu


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("runs", nargs="?", type=int, default=7)
    parser.add_argument("--pair", default="acp-gemini:gemini", help="PROFILE:DIRECT")
    args = parser.parse_args()
    profile, direct = args.pair.split(":", 1)
    env = SETTINGS.get(direct, {})
    times: dict[str, list[tuple[float, float]]] = {profile: [], direct: []}
    with ScriptedProvider("write-and-run") as server, tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        if args.runs > 1:  # one run is the smoke test's: it checks the bench works
            for engine in (direct, profile):
                one_run(engine, server, new_task(root / f"warm-{engine}"), env)
        for i in range(args.runs):
            for engine in (direct, profile):
                times[engine].append(one_run(engine, server, new_task(root / f"{engine}{i}"), env))
    print(f"runs: {args.runs} each, alternating; scenario write-and-run; holon-agent both sides")
    medians = {}
    for engine, pairs in times.items():
        wall = statistics.median(w for w, _ in pairs)
        cpu = statistics.median(c for _, c in pairs)
        medians[engine] = (wall, cpu)
        print(f"{engine:12s} wall median {wall * 1000:7.0f} ms   CPU median {cpu * 1000:7.0f} ms")
    (pw, pc), (dw, dc) = medians[profile], medians[direct]
    print(
        f"ACP overhead wall {(pw - dw) * 1000:7.0f} ms ratio {pw / dw:.3f}; "
        f"CPU {(pc - dc) * 1000:7.0f} ms ratio {pc / dc:.3f}"
    )


if __name__ == "__main__":
    main()
