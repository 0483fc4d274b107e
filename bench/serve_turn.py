"""Per-turn cost of serve mode with the replay engine: serve turn vs one-shot vs bare replay.

    uv run --frozen --no-sync python -m bench.serve_turn [--runs 15]

The same replay script (say a line, run a command, say another: a message, a tool call and
its output, a message) three ways, alternating so drift hits all:

- bare: the replay engine process itself (``python -m holon_core.builtin.replay_engine``);
- serve: ``POST /v1/responses`` (not streamed) to a running ``holon-agent serve``, request
  sent to response read, each turn continuing the previous one (``previous_response_id``);
- one-shot: a fresh ``holon-agent`` process running the same task.

Serve's overhead is serve minus bare: what holon adds to a turn beside the engine's own
time, the pipeline of a one-shot run included. The serve layer alone (the HTTP routes, the
queue, planning the turn, its stream and output-item mapping, ``events.ndjson``,
``turn.json``, the stored responses: a turn minus the ``run_turn`` it calls) is measured
in-process apart, for a plain, a streamed and a queued turn (budget: 30 ms), with the parts
that dominate it (the output-item mapping, the final record's fsync), its CPU time (the
figure a shared, loaded machine does not inflate: wall times here wait on the disk and the
scheduler), and the queue's own bookkeeping. Figures are medians in ms. Nothing is
asserted.
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

SCRIPT = "- say: working\n- run: echo checked\n- say: done\n"


def _bare(root: Path, prompt: Path, script: Path) -> float:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "holon_core.builtin.replay_engine", str(script), str(prompt)],
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


class _Spans:
    """Patches callables to record when each call ran: ``{name: [(start, end), ...]}``, and
    the CPU time of the calling thread it took (``cpu``)."""

    def __init__(self) -> None:
        self.spans: dict[str, list[tuple[float, float]]] = {}
        self.cpu: dict[str, list[tuple[float, float]]] = {}  # (start, thread CPU seconds)
        self._undo: list[tuple[Any, str, Any]] = []

    def patch(self, owner: Any, attribute: str, name: str) -> None:
        original = getattr(owner, attribute)
        calls, cpu = self.spans.setdefault(name, []), self.cpu.setdefault(name, [])

        def timed(*args: Any, **kwargs: Any) -> Any:
            started, cpu_started = time.perf_counter(), time.thread_time()
            try:
                return original(*args, **kwargs)
            finally:
                calls.append((started, time.perf_counter()))
                cpu.append((started, time.thread_time() - cpu_started))

        setattr(owner, attribute, timed)
        self._undo.append((owner, attribute, original))

    def restore(self) -> None:
        for owner, attribute, original in reversed(self._undo):
            setattr(owner, attribute, original)

    def within(self, name: str, begin: float, end: float) -> float:
        """Time spent in ``name`` by calls that started between ``begin`` and ``end``."""
        return sum(e - s for s, e in self.spans.get(name, []) if begin <= s <= end)

    def cpu_within(self, name: str, begin: float, end: float) -> float:
        return sum(cpu for s, cpu in self.cpu.get(name, []) if begin <= s <= end)

    def took(self, name: str, index: int) -> float:
        start, end = self.spans[name][index]
        return end - start


def _serve_layer(root: Path, script: Path, runs: int) -> dict[str, list[float]]:
    """Per turn, in-process: the serve app (HTTP routes, the queue, the turn's thread, its
    stream and output-item mapping, ``events.ndjson``, ``turn.json``, the stored responses)
    minus the one-shot pipeline (``run_turn``) it calls.

    - ``plain``: a request to its response, nothing ahead of it;
    - ``streamed``: the same, streamed (server-sent events);
    - ``queued``: two requests of one session sent at once; one waits in the queue. Its
      share: from the moment the first turn leaves the queue (``finish``) to its response,
      minus its pipeline, plus planning and queueing it (done while the first ran).

    The engine's events are mapped to stream events (``TurnStream.feed``: output items,
    ``events.ndjson``) while ``run_turn`` runs: that time is counted back in.
    """
    import asyncio

    import httpx

    from holon_core.agent.paths import AgentPaths
    from holon_core.serve import app as serve_app
    from holon_core.serve import turn as serve_turn
    from holon_core.serve.queue import TurnQueue
    from holon_core.serve.server import load_session
    from holon_core.serve.stream import TurnStream

    for name in ("in2", "out2", "state2"):
        (root / name).mkdir()
    env = {**_env(), "HOLON_REPLAY_SCRIPT": str(script)}
    paths = AgentPaths(root / "in2", root / "workspace", root / "out2", root / "state2")
    session = load_session(paths, env, engine="replay", model=None, skills=[], isolate=False)
    app = serve_app.build_app(serve_app.ServeState(session=session, socket="(in-process)"))
    layer: dict[str, list[float]] = {"plain": [], "streamed": [], "queued": []}
    layer |= {"of which: item mapping": [], "of which: final record (fsync)": []}
    layer |= {"CPU (all its threads), plain": []}
    timing = _Spans()

    def engine(index: int) -> float:
        """The ``index``-th pipeline's time minus the stream mapping done inside it."""
        begin, end = timing.spans["run_turn"][index]
        return end - begin - timing.within("feed", begin, end)

    async def post(client: httpx.AsyncClient, body: dict[str, Any]) -> float:
        response = await client.post("/v1/responses", json=body)
        response.raise_for_status()
        return time.perf_counter()

    async def measure() -> None:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:
            for index in range(runs + 1):  # the first of each kind warms up
                for kind, stream in (("plain", False), ("streamed", True)):
                    started, cpu_started = time.perf_counter(), time.thread_time()
                    ended = await post(client, {"input": "say", "stream": stream})
                    loop_cpu = time.thread_time() - cpu_started  # routes, queue, delivery
                    if index and kind == "plain":
                        # the turn's thread minus the pipeline in it, the mapping beside it
                        cpu = loop_cpu + timing.cpu_within("execute", started, ended)
                        cpu -= timing.cpu_within("run_turn", started, ended)
                        cpu += timing.cpu_within("feed", started, ended)
                        layer["CPU (all its threads), plain"].append(cpu)
                    if index:
                        layer[kind].append(ended - started - engine(-1))
                        begin, end = timing.spans["run_turn"][-1]
                        layer["of which: item mapping"].append(timing.within("feed", begin, end))
                        layer["of which: final record (fsync)"].append(timing.took("save", -1))
                body = {"input": "say", "holon": {"session_id": f"pair{index}"}}
                pair = [asyncio.create_task(post(client, body)) for _ in range(2)]
                ended = max(await asyncio.gather(*pair))
                if index:
                    left_queue = timing.spans["finish"][-2][0]
                    ahead = max(
                        timing.took("plan", i) + timing.took("enqueue", i) for i in (-1, -2)
                    )
                    layer["queued"].append(ended - left_queue - engine(-1) + ahead)

    timing.patch(serve_turn, "run_turn", "run_turn")
    timing.patch(TurnStream, "feed", "feed")
    timing.patch(TurnQueue, "finish", "finish")
    timing.patch(serve_app, "plan_turn", "plan")
    timing.patch(serve_app, "_enqueue", "enqueue")
    timing.patch(serve_turn, "_save", "save")  # the last of a turn: its durable record
    timing.patch(serve_app, "execute", "execute")
    try:
        asyncio.run(measure())
    finally:
        timing.restore()
    return layer


def _queue_cost(turns: int = 2000) -> float:
    """Seconds per turn of :class:`TurnQueue` alone: submit, start, finish."""
    from holon_core.serve.queue import Ticket, TurnQueue

    queue = TurnQueue(lambda _ticket: None)
    tickets = [Ticket(f"r{i}", f"s{i % 3}", f"t{i}", "write") for i in range(turns)]
    started = time.perf_counter()
    for ticket in tickets:
        queue.submit(ticket)
        queue.finish(ticket)
    return (time.perf_counter() - started) / turns


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
    print(f"runs: {runs} each, alternating; replay engine: say, run a command, say")
    print(f"bare replay engine   median {b:7.1f} ms  (min {min(bare) * 1000:.1f})")
    print(f"serve turn           median {s:7.1f} ms  (min {min(serve) * 1000:.1f})")
    print(f"one-shot holon-agent median {o:7.1f} ms  (min {min(one_shot) * 1000:.1f})")
    print(f"serve overhead (serve - bare)  {s - b:7.1f} ms  ratio serve/bare {s / b:.2f}")
    print(f"one-shot overhead              {o - b:7.1f} ms  ratio one-shot/serve {o / s:.2f}")
    print("serve layer alone, in-process (budget 30 ms a turn):")
    for kind, values in layer.items():
        print(
            f"  {kind:32} median {statistics.median(values) * 1000:6.1f} ms  "
            f"(min {min(values) * 1000:.1f})"
        )
    print(f"  the queue's own bookkeeping (submit + finish) {_queue_cost() * 1e6:.0f} us a turn")


if __name__ == "__main__":
    main()
