"""What the model gateway adds to a model call: latency, time to first byte, stream throughput.

    uv run --frozen --no-sync python -m bench.gateway_overhead [--calls 200] [--mib 50]

Three processes, as in a run: the upstream, the gateway (``holon_core.gateway``, started
here in a child process exactly as a run starts it), and this one as the engine (an httpx
client). Alternating direct and through-the-gateway calls so drift hits both:

- per call: a streamed Anthropic Messages call to the scripted model server, request sent to
  the last byte read, and the time to the first body byte; the gateway's cost is the median
  through it minus the median direct (issue 24 asks < 1 ms and < 2 ms);
- a large stream: ``--mib`` MiB of SSE lines from a plain upstream, read direct and through
  the gateway (asked: at least half the direct throughput);
- concurrency: 50 streamed calls at once through the gateway, all answered.

Figures are medians; nothing is asserted. The gateway process's CPU time per call is
reported too (wall times on a loaded 2-core machine wait on the scheduler).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import psutil

KEY = "sk-bench-real-key"
#: Engines' HTTP stacks (Node's, Bun's, reqwest) set TCP_NODELAY; so does this client.
NODELAY = [(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)]


def client(**kwargs: Any) -> httpx.Client:
    return httpx.Client(
        transport=httpx.HTTPTransport(socket_options=NODELAY, **kwargs), timeout=120
    )


BODY = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 64,
    "stream": True,
    "messages": [{"role": "user", "content": "hi"}],
}


def serve_gateway(upstream: str) -> None:
    """Child mode: start the gateway towards ``upstream``, print the engine's env, wait."""
    from holon_core.engine.adapter import EngineAdapter
    from holon_core.gateway.session import open_gateway

    class Bench(EngineAdapter):
        name = "bench"
        model_api = "anthropic-messages"
        credential_env = ("ANTHROPIC_API_KEY",)

        def endpoint_env(self, base_url: str) -> dict[str, str]:
            return {"ANTHROPIC_BASE_URL": base_url, "ANTHROPIC_API_KEY": "fake"}

        def launch(self, run: Any) -> Any:
            raise NotImplementedError

        def event_parser(self, run: Any) -> Any:
            raise NotImplementedError

    env = {"ANTHROPIC_BASE_URL": upstream, "ANTHROPIC_API_KEY": KEY}
    session = open_gateway(Bench(), env, None)
    assert session is not None and session.server is not None
    print(json.dumps(session.engine_env), flush=True)
    sys.stdin.read()
    session.close()


class BulkUpstream:
    """Plain HTTP: every request gets ``size`` bytes of SSE lines, chunked, as fast as it can."""

    def __init__(self, size: int) -> None:
        line = b"data: " + json.dumps({"type": "delta", "text": "x" * 1000}).encode() + b"\n\n"
        self.block = line * 64
        self.size = size
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            conn, _ = self.sock.accept()
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            data = b""
            while b"\r\n\r\n" not in data:
                data += conn.recv(65536)
            head, _, rest = data.partition(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n"):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            while len(rest) < length:
                rest += conn.recv(65536)
            conn.sendall(
                b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                b"connection: close\r\ntransfer-encoding: chunked\r\n\r\n"
            )
            sent = 0
            while sent < self.size:
                conn.sendall(b"%x\r\n%s\r\n" % (len(self.block), self.block))
                sent += len(self.block)
            conn.sendall(b"0\r\n\r\n")


def start_gateway(upstream: str) -> tuple[subprocess.Popen[str], dict[str, str]]:
    child = subprocess.Popen(
        [sys.executable, "-m", "bench.gateway_overhead", "--serve-gateway", upstream],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    return child, json.loads(child.stdout.readline())


def start_provider() -> tuple[subprocess.Popen[str], str]:
    child = subprocess.Popen(
        [sys.executable, "-m", "holon_conformance.provider", "--scenario", "final-only"],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    line = child.stdout.readline()
    return child, line.rsplit(" at ", 1)[1].strip()


def timed_call(client: httpx.Client, base: str, key: str) -> tuple[float, float]:
    """(first body byte, total) in ms of one streamed call."""
    started = time.perf_counter()
    first = None
    headers = {"x-api-key": key, "anthropic-version": "2023-06-01"}
    with client.stream("POST", base + "/v1/messages", json=BODY, headers=headers) as answer:
        for _ in answer.iter_raw():
            if first is None:
                first = time.perf_counter()
        assert answer.status_code == 200, (answer.status_code, answer.read())
    end = time.perf_counter()
    return ((first or end) - started) * 1e3, (end - started) * 1e3


def read_all(client: httpx.Client, base: str, key: str) -> tuple[int, float]:
    started = time.perf_counter()
    size = 0
    with client.stream(
        "POST", base + "/v1/messages", json=BODY, headers={"x-api-key": key}
    ) as answer:
        for chunk in answer.iter_raw():
            size += len(chunk)
    return size, time.perf_counter() - started


def per_call(provider: str, gateway: dict[str, str], calls: int, cpu: psutil.Process) -> None:
    direct: list[tuple[float, float]] = []
    through: list[tuple[float, float]] = []
    via, placeholder = gateway["ANTHROPIC_BASE_URL"], gateway["ANTHROPIC_API_KEY"]
    with client() as session:
        for _ in range(10):  # warm both paths (connections, imports)
            timed_call(session, provider, KEY)
            timed_call(session, via, placeholder)
        cpu_before = cpu.cpu_times()
        for _ in range(calls):
            direct.append(timed_call(session, provider, KEY))
            through.append(timed_call(session, via, placeholder))
        cpu_after = cpu.cpu_times()
    cpu_ms = (cpu_after.user + cpu_after.system - cpu_before.user - cpu_before.system) / calls * 1e3

    def med(values: list[tuple[float, float]], index: int) -> float:
        return statistics.median(v[index] for v in values)

    print(f"per call ({calls} streamed calls each way, medians):")
    print(f"  direct:   first byte {med(direct, 0):7.2f} ms   total {med(direct, 1):7.2f} ms")
    print(f"  gateway:  first byte {med(through, 0):7.2f} ms   total {med(through, 1):7.2f} ms")
    print(
        f"  added:    first byte {med(through, 0) - med(direct, 0):7.2f} ms   "
        f"total {med(through, 1) - med(direct, 1):7.2f} ms"
    )
    print(f"  gateway process CPU per call: {cpu_ms:.2f} ms")


def throughput(mib: int) -> None:
    upstream = BulkUpstream(mib * 1024 * 1024)
    child, env = start_gateway(upstream.url)
    try:
        with client() as session:
            rates: dict[str, list[float]] = {"direct": [], "gateway": []}
            for _ in range(3):
                size, seconds = read_all(session, upstream.url, KEY)
                rates["direct"].append(size / seconds / 2**20)
                size, seconds = read_all(
                    session, env["ANTHROPIC_BASE_URL"], env["ANTHROPIC_API_KEY"]
                )
                rates["gateway"].append(size / seconds / 2**20)
    finally:
        stop(child)
    direct, through = statistics.median(rates["direct"]), statistics.median(rates["gateway"])
    print(f"a {mib} MiB stream (median of 3):")
    ratio = through / direct
    print(f"  direct {direct:7.1f} MiB/s   gateway {through:7.1f} MiB/s   ratio {ratio:.2f}")


def concurrent(gateway: dict[str, str], streams: int) -> None:
    via, placeholder = gateway["ANTHROPIC_BASE_URL"], gateway["ANTHROPIC_API_KEY"]
    limits = httpx.Limits(max_connections=streams)
    with client(limits=limits) as session:
        started = time.perf_counter()
        with ThreadPoolExecutor(streams) as pool:
            calls = pool.map(lambda _: timed_call(session, via, placeholder), range(streams))
            results = list(calls)
        wall = (time.perf_counter() - started) * 1e3
    print(f"{streams} concurrent streams through the gateway: all {len(results)} answered 200")
    median = statistics.median(r[1] for r in results)
    print(f"  wall {wall:.0f} ms, median total per stream {median:.1f} ms")


def stop(child: subprocess.Popen[str]) -> None:
    if child.stdin is not None:
        child.stdin.close()
    child.wait(timeout=20)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--mib", type=int, default=50)
    parser.add_argument("--streams", type=int, default=50)
    parser.add_argument("--serve-gateway", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_gateway:
        serve_gateway(args.serve_gateway)
        return
    os.environ.pop("HTTP_PROXY", None)
    provider, url = start_provider()
    try:
        child, env = start_gateway(url)
        try:
            per_call(url, env, args.calls, psutil.Process(child.pid))
            concurrent(env, args.streams)
        finally:
            stop(child)
    finally:
        provider.terminate()
        provider.wait(timeout=10)
    throughput(args.mib)


if __name__ == "__main__":
    main()
