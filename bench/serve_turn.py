"""Per-turn cost of serve mode with the replay engine: serve turn vs one-shot vs bare replay.

    uv run --frozen --no-sync python -m bench.serve_turn [--runs 15]

The same one-step replay script (say one line) three ways, alternating so drift hits all:

- bare: the replay engine process itself (``python -m holon_core.replay_engine``);
- serve: ``POST /v1/responses`` (not streamed) to a running ``holon-agent serve``, request
  sent to response read, each turn continuing the previous one (``previous_response_id``);
- one-shot: a fresh ``holon-agent`` process running the same task.

Serve's overhead is serve minus bare: what holon adds to a turn beside the engine's own
time, the pipeline of a one-shot run included. The serve layer alone (planning the turn,
its stream, ``events.ndjson``, ``turn.json``, the stored response: a turn minus the
``run_turn`` it calls) is measured in-process apart (budget: 30 ms). Figures are medians in
ms. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from holon_core.serve.client import ServeClient, start_server

SCRIPT = "- say: done\n"


def _bare(root: Path, prompt: Path, script: Path) -> float:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "holon_core.replay_engine", str(script), str(prompt)],
        cwd=root / "workspace",
        env={**os.environ, "HOLON_OUTPUT_DIR": str(root / "bare-out")},
        capture_output=True,
        check=True,
    )
    return time.perf_counter() - started


def _one_shot(root: Path, index: int) -> float:
    argv = [sys.executable, "-m", "holon_core.agent", "--engine", "replay"]
    argv += ["--input", str(root / "task"), "--workspace", str(root / "workspace")]
    argv += ["--output", str(root / f"oneshot-{index}"), "--state", str(root / "state1")]
    started = time.perf_counter()
    subprocess.run(argv, capture_output=True, check=True, env=_env())
    return time.perf_counter() - started


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("HOLON_")}


def _serve_layer(root: Path, script: Path, runs: int) -> list[float]:
    """Per turn: the serve turn minus the one-shot pipeline it calls, in-process."""
    from holon_core.agent.paths import AgentPaths
    from holon_core.serve import turn as serve_turn
    from holon_core.serve.protocol import parse_request
    from holon_core.serve.server import load_session

    for name in ("in2", "out2", "state2"):
        (root / name).mkdir()
    env = {**_env(), "HOLON_REPLAY_SCRIPT": str(script)}
    paths = AgentPaths(root / "in2", root / "workspace", root / "out2", root / "state2")
    session = load_session(paths, env, engine="replay", model=None, skills=[], isolate=False)
    inner: list[float] = []
    pipeline = vars(serve_turn)["run_turn"]

    def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return pipeline(*args, **kwargs)
        finally:
            inner.append(time.perf_counter() - started)

    setattr(serve_turn, "run_turn", timed)  # noqa: B010  (a patch for the measurement)
    layer, previous = [], None
    for _ in range(runs + 1):
        body: dict[str, Any] = {"input": "say"}
        if previous:
            body["previous_response_id"] = previous
        started = time.perf_counter()
        turn = serve_turn.plan_turn(session, parse_request(body))
        serve_turn.execute(session, turn, lambda _event: None)
        layer.append(time.perf_counter() - started - inner[-1])
        previous = turn.response_id
    setattr(serve_turn, "run_turn", pipeline)  # noqa: B010
    return layer[1:]  # the first turn warms up


def main() -> None:
    parser = argparse.ArgumentParser(prog="bench.serve_turn")
    parser.add_argument("--runs", type=int, default=15)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for name in ("workspace", "task/context", "input", "output", "state", "state1"):
            (root / name).mkdir(parents=True)
        (root / "workspace" / "README.md").write_text("hi\n")
        (root / "task" / "spec.yaml").write_text('version: v1\nkind: Holon\ngoal: "say"\n')
        script = root / "task" / "context" / "replay.yaml"
        script.write_text(SCRIPT)
        prompt = root / "prompt.md"
        prompt.write_text("say\n")
        args = ["--engine", "replay"]
        for name in ("input", "output", "workspace", "state"):
            args += [f"--{name}", str(root / name)]
        env = {**_env(), "HOLON_REPLAY_SCRIPT": str(script)}
        server = start_server(root / "agent.sock", args, env=env, stderr=subprocess.DEVNULL)
        bare, serve, one_shot = [], [], []
        try:
            with ServeClient(root / "agent.sock") as client:
                previous = client.create("warm up")["id"]
                _bare(root, prompt, script)
                _one_shot(root, -1)
                for index in range(runs):
                    bare.append(_bare(root, prompt, script))
                    started = time.perf_counter()
                    previous = client.create("say", previous_response_id=previous)["id"]
                    serve.append(time.perf_counter() - started)
                    one_shot.append(_one_shot(root, index))
                client.shutdown()
            server.wait(timeout=60)
        finally:
            if server.poll() is None:
                os.killpg(server.pid, signal.SIGKILL)
                server.wait()
        with contextlib.redirect_stderr(io.StringIO()):
            layer = _serve_layer(root, script, runs)
    b, s, o = (statistics.median(x) * 1000 for x in (bare, serve, one_shot))
    print(f"runs: {runs} each, alternating; replay engine, one 'say' step")
    print(f"bare replay engine   median {b:7.1f} ms  (min {min(bare) * 1000:.1f})")
    print(f"serve turn           median {s:7.1f} ms  (min {min(serve) * 1000:.1f})")
    print(f"one-shot holon-agent median {o:7.1f} ms  (min {min(one_shot) * 1000:.1f})")
    print(f"serve overhead (serve - bare)  {s - b:7.1f} ms  ratio serve/bare {s / b:.2f}")
    print(f"one-shot overhead              {o - b:7.1f} ms  ratio one-shot/serve {o / s:.2f}")
    print(
        f"serve layer alone (in-process) median {statistics.median(layer) * 1000:6.1f} ms  "
        f"(min {min(layer) * 1000:.1f}; budget 30)"
    )


if __name__ == "__main__":
    main()
