"""Replaying a cassette against running the same task live against the scripted model server.

    uv run --frozen --no-sync python -m bench.cassette_replay [--engines claude,codex] [--rounds 5]

For each engine: one write-and-run task recorded once through the gateway (``--record``),
then ``--rounds`` pairs of runs, alternating so drift hits both:

- live: ``holon-agent`` through the gateway to the scripted model server (in this process,
  plain HTTP), as a run without a cassette does;
- replay: ``holon-agent --cassette DIR`` with no key and the server stopped: the gateway
  answers from the cassette (normalizing each request, matching it, rewriting paths).

Wall time and CPU (holon-agent, the engine and every process they start, plus this process,
where the scripted server runs) per run; medians and the ratio replay/live side by side.
Nothing is asserted: the figure goes into docs/cassettes.md and the report.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from holon_conformance.provider import ScriptedProvider
from holon_conformance.provider.apis import installed_adapters

from holon_core.testing import make_task, run_agent

MODELS = {
    "claude": ("claude-sonnet-4-5", {"HOLON_CLAUDE_MAX_RETRIES": "1"}),
    "codex": ("gpt-5.5", {"HOLON_SILENCE_TIMEOUT": "20"}),
    "gemini": ("gemini-2.5-flash", {"HOLON_GEMINI_MAX_ATTEMPTS": "1"}),
    "opencode": ("claude-sonnet-4-5", {"HOLON_OPENCODE_MAX_RETRIES": "1"}),
}


def cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def one_run(engine: str, root: Path, env: dict[str, str], args: list[str]) -> tuple[float, float]:
    """(wall s, CPU s) of one holon-agent run; fails loudly unless it succeeded."""
    task = make_task(root, goal="Create hello.txt", files={"README.md": "hi\n"})
    cpu, wall = cpu_seconds(), time.perf_counter()
    result = run_agent(task, engine, env=env, args=args, timeout=300)
    wall, cpu = time.perf_counter() - wall, cpu_seconds() - cpu
    manifest: dict[str, Any] | None = result.manifest
    if manifest is None or manifest["outcome"] != "success":
        raise SystemExit(f"{engine}: a run did not succeed: {result.stderr[-2000:]}")
    return wall, cpu


def bench_engine(engine: str, rounds: int, scratch: Path) -> dict[str, float]:
    model, extra = MODELS[engine]
    adapter = installed_adapters().get_engine(engine)
    settings = extra | {"HOLON_MODEL": model, "HOLON_GATEWAY": "on"}
    cassette = scratch / f"{engine}-cassette"
    live: list[tuple[float, float]] = []
    replayed: list[tuple[float, float]] = []
    with ScriptedProvider("write-and-run") as server:
        live_env = server.engine_env(engine) | settings
        one_run(engine, scratch / f"{engine}-rec", live_env, ["--record", str(cassette)])
        endpoint = adapter.endpoint_env("http://127.0.0.1:9")  # nothing listens there
        replay_env = {k: v for k, v in endpoint.items() if k not in adapter.credential_env}
        replay_env |= settings
        for index in range(rounds):
            live.append(one_run(engine, scratch / f"{engine}-live{index}", live_env, []))
            replayed.append(
                one_run(
                    engine,
                    scratch / f"{engine}-replay{index}",
                    replay_env,
                    ["--cassette", str(cassette)],
                )
            )
    return {
        "live_wall": statistics.median(w for w, _ in live),
        "replay_wall": statistics.median(w for w, _ in replayed),
        "live_cpu": statistics.median(c for _, c in live),
        "replay_cpu": statistics.median(c for _, c in replayed),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", default="claude,codex,gemini,opencode")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    print(f"medians of {args.rounds} runs each, write-and-run (3 model calls)")
    print(
        f"{'engine':9} {'live wall':>10} {'replay wall':>12} {'ratio':>6}   "
        f"{'live CPU':>9} {'replay CPU':>11} {'ratio':>6}"
    )
    with tempfile.TemporaryDirectory(prefix="holon-bench-replay-") as tmp:
        for engine in args.engines.split(","):
            got = bench_engine(engine, args.rounds, Path(tmp))
            print(
                f"{engine:9} {got['live_wall']:9.2f}s {got['replay_wall']:11.2f}s "
                f"{got['replay_wall'] / got['live_wall']:6.2f}   "
                f"{got['live_cpu']:8.2f}s {got['replay_cpu']:10.2f}s "
                f"{got['replay_cpu'] / got['live_cpu']:6.2f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
