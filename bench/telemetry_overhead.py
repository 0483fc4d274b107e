"""What exporting a run's trace costs: holon-agent with and without the OTLP endpoint.

    uv run --frozen --no-sync python -m bench.telemetry_overhead [--runs 10] [--engine-seconds S]

The same replay task (a write, two commands, two messages) run by a fresh ``holon-agent``,
alternating without and with ``OTEL_EXPORTER_OTLP_ENDPOINT`` pointed at a sink on 127.0.0.1
(an HTTP server that answers 200 and keeps nothing), so drift hits both. Reported: the
agent's CPU time (user + system of the child: the figure a shared machine does not inflate)
and wall time, medians in ms, and the ratio with / without. The SDK's import runs in a
thread while the engine runs and the spans are built from the record after it: the CPU is
the cost; the wall it adds shrinks as the engine's own time grows (``--engine-seconds``: a
sleep step, as a real engine's model calls would take). Nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from holon_core.testing import make_task
from holon_core.testing.agent_run import agent_argv, agent_env

STEPS = [
    {"say": "writing"},
    {"write": {"path": "hello.txt", "content": "hello\n"}},
    {"run": "cat hello.txt"},
    {"run": "true"},
    {"say": "done"},
]


class _Sink(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


def _one(root: Path, env: dict[str, str], engine_seconds: float) -> tuple[float, float]:
    """(CPU ms, wall ms) of one holon-agent run."""
    pause = [{"sleep": engine_seconds}] if engine_seconds else []
    task = make_task(root, replay=[*STEPS[:1], *pause, *STEPS[1:]])
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(agent_argv(task), env=agent_env(env), capture_output=True, check=False)
    wall = (time.perf_counter() - started) * 1e3
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(done.stderr.decode())
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1e3
    return cpu, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--engine-seconds", type=float, default=0.0)
    args = parser.parse_args()
    runs = args.runs
    sink = ThreadingHTTPServer(("127.0.0.1", 0), _Sink)
    threading.Thread(target=sink.serve_forever, daemon=True).start()
    traced = {"OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{sink.server_address[1]}"}
    figures: dict[str, list[tuple[float, float]]] = {"off": [], "on": []}
    with tempfile.TemporaryDirectory() as tmp:
        for index in range(runs + 1):  # the first pair warms the caches and is dropped
            for name, env in (("off", {}), ("on", traced)):
                measured = _one(Path(tmp) / f"{name}-{index}", env, args.engine_seconds)
                if index:
                    figures[name].append(measured)
    sink.shutdown()
    cpu = {k: statistics.median(c for c, _ in v) for k, v in figures.items()}
    wall = {k: statistics.median(w for _, w in v) for k, v in figures.items()}
    print(f"holon-agent, replay task, {runs} runs each (medians, ms); {os.cpu_count()} CPUs")
    print(
        f"  CPU  without traces {cpu['off']:7.1f}  with {cpu['on']:7.1f}  "
        f"ratio {cpu['on'] / cpu['off']:.2f}  (+{cpu['on'] - cpu['off']:.0f} ms)"
    )
    print(
        f"  wall without traces {wall['off']:7.1f}  with {wall['on']:7.1f}  "
        f"ratio {wall['on'] / wall['off']:.2f}  (+{wall['on'] - wall['off']:.0f} ms)"
    )


if __name__ == "__main__":
    main()
