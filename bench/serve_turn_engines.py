"""Per-turn cost of a serve turn against the bare engine CLI continuing its own session.

    uv run --frozen --no-sync python -m bench.serve_turn_engines [--runs 5] [--engine claude]

The same scripted turn (the model answers at once) three ways, each continuing a session
that one earlier turn started, alternating so drift hits all equally:

- bare: the engine CLI itself resuming its session (``claude -p --resume``,
  ``codex exec resume``, ``gemini --resume``), with the recipe of ``holon_conformance.direct``
  (no holon system text, the engine's default model name: serve minus bare therefore also
  holds what the engine spends on holon's larger prompt and settings);
- serve: ``POST /v1/responses`` with ``previous_response_id`` to a running
  ``holon-agent serve`` (request sent to response read), when holon-agent has ``serve``;
  otherwise the turn function serve calls (``run_agent`` with the session's home and engine
  session id), labelled as such;
- one-shot: a fresh ``holon-agent`` process running one turn (no resume).

Figures are medians in ms; the overhead is serve minus bare, and "holon's part" is a serve
turn minus the engine's own wall time in it (the turn's ``evidence/resources.json``): what
the turn costs beside the engine. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from holon_conformance.direct import direct_launch
from holon_conformance.provider import ScriptedProvider
from holon_conformance.sessions import EngineSession
from holon_conformance.suite import uds_http

from holon_core.hooks.manager import load_plugins
from holon_core.testing import make_task
from holon_core.testing.agent_run import agent_argv, agent_env

MODELS = {"claude": "fake-model-1", "codex": "gpt-5.5", "gemini": "gemini-2.5-flash"}
SCENARIO = {"turns": [{"final": {"text": "Done."}}]}


def _session_id(engine: str, stdout: str) -> str:
    for line in stdout.splitlines():
        with contextlib.suppress(ValueError):
            event = json.loads(line)
            if isinstance(event, dict):
                found = event.get("thread_id") if engine == "codex" else event.get("session_id")
                if isinstance(found, str):
                    return found
    raise SystemExit(f"{engine}: no session id in the bare engine's output")


class Bare:
    """The engine CLI alone: one fresh turn, then timed turns resuming that session."""

    def __init__(self, engine: str, binary: Path, provider: ScriptedProvider, root: Path) -> None:
        self.engine, self.binary, self.provider = engine, binary, provider
        self.home, self.workspace = root / "bare-home", root / "bare-ws"
        self.workspace.mkdir(parents=True)
        self.home.mkdir()
        done = self._run("Say hello.", None)
        self.session = _session_id(engine, done.stdout)

    def _run(self, prompt: str, resume: str | None) -> subprocess.CompletedProcess[str]:
        launch = direct_launch(self.engine, self.binary, prompt, self.home, self.provider)
        argv = list(launch.argv)
        if resume is not None and self.engine == "codex":
            argv[-1:-1] = ["resume", resume]  # exec options, then `resume ID PROMPT`
        elif resume is not None:
            argv += ["--resume", resume]
        done = subprocess.run(
            argv,
            env=launch.env,
            cwd=self.workspace,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        if done.returncode != 0:
            raise SystemExit(f"bare {self.engine} failed ({done.returncode}): {done.stderr[-800:]}")
        return done

    def turn(self) -> float:
        started = time.perf_counter()
        self._run("Say more.", self.session)
        return time.perf_counter() - started


class Serve:
    """``holon-agent serve`` over its socket, or the turn function when it has no serve."""

    def __init__(self, engine: str, provider: ScriptedProvider, root: Path) -> None:
        self.engine = engine
        self.env = agent_env({**provider.engine_env(engine), "HOLON_MODEL": MODELS[engine]})
        self.task = make_task(root / "serve", goal="Answer.", files={"README.md": "hi\n"})
        self.socket = Path(tempfile.mkdtemp(prefix="hb-")) / "agent.sock"
        self.proc: subprocess.Popen[bytes] | None = None
        self.last_output = self.task.output
        self.label = "serve turn"
        self.previous: str | None = None
        if self._start():
            self.previous = self._post("Say hello.")
        else:
            self.label = "turn function (holon-agent has no serve)"
            self.session = EngineSession(engine, provider, root / "fn", self.env)
            first = self.session.turn("Say hello.", workspace=self.task.workspace)
            self.previous = first.session_id

    def _start(self) -> bool:
        argv = [sys.executable, "-m", "holon_core.agent", "serve", "--engine", self.engine]
        argv += ["--socket", str(self.socket), "--input", str(self.task.input)]
        argv += ["--workspace", str(self.task.workspace), "--output", str(self.task.output)]
        argv += ["--state", str(self.task.state)]
        self.proc = subprocess.Popen(
            argv,
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and self.proc.poll() is None:
            with contextlib.suppress(OSError):
                if uds_http.request(str(self.socket), "GET", "/health", timeout=5).status == 200:
                    return True
            time.sleep(0.05)
        self.stop()
        return False

    def _post(self, text: str) -> str:
        body: dict[str, Any] = {"input": text}
        if self.previous is not None:
            body["previous_response_id"] = self.previous
        reply = uds_http.request(str(self.socket), "POST", "/v1/responses", body)
        data = reply.json()
        if reply.status != 200 or data.get("status") != "completed":
            raise SystemExit(f"serve turn failed: {reply.status} {reply.body[:500]!r}")
        self.last_output = Path(data["holon"]["output_dir"])
        return str(data["id"])

    def engine_seconds(self) -> float:
        """The engine's own wall time in the last turn (its ``evidence/resources.json``)."""
        resources = self.last_output / "evidence" / "resources.json"
        return float(json.loads(resources.read_text(encoding="utf-8"))["engine_seconds"])

    def turn(self) -> float:
        started = time.perf_counter()
        if self.proc is not None:
            self.previous = self._post("Say more.")
        else:
            done = self.session.turn(
                "Say more.", workspace=self.task.workspace, resume=self.previous
            )
            if done.result.exit_code != 0:
                raise SystemExit(f"turn failed: {done.result.manifest}")
            self.last_output = done.result.output_dir
            self.previous = done.session_id
        return time.perf_counter() - started

    def stop(self) -> None:
        if self.proc is None:
            return
        with contextlib.suppress(OSError):
            uds_http.request(str(self.socket), "POST", "/shutdown", {}, timeout=30)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()
        self.proc = None


def one_shot(engine: str, provider: ScriptedProvider, root: Path) -> float:
    task = make_task(root, goal="Say more.", files={"README.md": "hi\n"})
    env = agent_env({**provider.engine_env(engine), "HOLON_MODEL": MODELS[engine]})
    started = time.perf_counter()
    argv = agent_argv(task, engine)
    done = subprocess.run(argv, env=env, capture_output=True, timeout=120, check=False)
    if done.returncode != 0:
        raise SystemExit(f"holon-agent failed ({done.returncode}): {done.stderr[-800:]!r}")
    return time.perf_counter() - started


def measure(engine: str, runs: int) -> dict[str, Any]:
    from holon_conformance.provider import parse_scenario

    binary = load_plugins().get_engine(engine).locate_binary(agent_env())
    if binary is None:
        raise SystemExit(f"{engine} is not installed: run `holon engines install {engine}`")
    times: dict[str, list[float]] = {"bare": [], "serve": [], "one-shot": [], "holon-own": []}
    scenario = parse_scenario(SCENARIO, "bench-serve-turn")
    with ScriptedProvider(scenario) as provider, tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        bare, serve = Bare(engine, binary, provider, root), Serve(engine, provider, root)
        try:
            bare.turn(), serve.turn()  # warm-up: page cache, first-resume effects
            for i in range(runs):
                times["bare"].append(bare.turn())
                times["serve"].append(serve.turn())
                times["holon-own"].append(times["serve"][-1] - serve.engine_seconds())
                times["one-shot"].append(one_shot(engine, provider, root / f"one-{i}"))
        finally:
            serve.stop()
    med = {k: statistics.median(v) * 1000 for k, v in times.items()}
    return {
        "engine": engine,
        "runs": runs,
        "serve_mode": serve.label,
        "median_ms": {k: round(v) for k, v in med.items()},
        "min_ms": {k: round(min(v) * 1000) for k, v in times.items()},
        "serve_overhead_ms": round(med["serve"] - med["bare"]),
        "serve_vs_bare": round(med["serve"] / med["bare"], 3),
        "serve_vs_one_shot": round(med["serve"] / med["one-shot"], 3),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--engine", action="append", choices=sorted(MODELS))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = [measure(engine, args.runs) for engine in args.engine or ["claude"]]
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    for r in results:
        m = r["median_ms"]
        print(f"{r['engine']}: {r['runs']} runs each, alternating; serve side: {r['serve_mode']}")
        print(f"  bare resumed turn   median {m['bare']:6d} ms  (min {r['min_ms']['bare']})")
        print(f"  serve turn          median {m['serve']:6d} ms  (min {r['min_ms']['serve']})")
        print(
            f"  one-shot holon-agent median {m['one-shot']:5d} ms  (min {r['min_ms']['one-shot']})"
        )
        print(f"  serve turn minus the engine's own time (holon's part) {m['holon-own']} ms")
        print(
            f"  serve overhead {r['serve_overhead_ms']} ms; serve/bare {r['serve_vs_bare']}, "
            f"serve/one-shot {r['serve_vs_one_shot']}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
