"""Per-turn cost of serve mode with the replay engine: serve turn vs one-shot vs bare replay.

    uv run --frozen --no-sync python -m bench.serve_turn [--runs 15]

The same one-step replay script (say one line) three ways, alternating so drift hits all:

- bare: the replay engine process itself (``python -m holon_core.replay_engine``);
- serve: ``POST /v1/responses`` (not streamed) to a running ``holon-agent serve``, request
  sent to response read, each turn continuing the previous one (``previous_response_id``);
- one-shot: a fresh ``holon-agent`` process running the same task.

Serve's overhead is serve minus bare: what holon adds to a turn beside the engine's own
time (budget: 30 ms). Figures are medians in ms. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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
    b, s, o = (statistics.median(x) * 1000 for x in (bare, serve, one_shot))
    print(f"runs: {runs} each, alternating; replay engine, one 'say' step")
    print(f"bare replay engine   median {b:7.1f} ms  (min {min(bare) * 1000:.1f})")
    print(f"serve turn           median {s:7.1f} ms  (min {min(serve) * 1000:.1f})")
    print(f"one-shot holon-agent median {o:7.1f} ms  (min {min(one_shot) * 1000:.1f})")
    print(f"serve overhead (serve - bare)  {s - b:7.1f} ms  ratio serve/bare {s / b:.2f}")
    print(f"one-shot overhead              {o - b:7.1f} ms  ratio one-shot/serve {o / s:.2f}")


if __name__ == "__main__":
    main()
