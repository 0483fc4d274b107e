"""What the engine's room costs (docs/sandbox.md, issue 33): a run's wall and CPU, the proxy's
throughput, the model bridge's latency.

    uv run --frozen --no-sync python -m bench.sandbox_overhead \
        [--engines replay,claude,codex,gemini,opencode] [--pairs 6] [--mib 50] [--requests 200]

1. **A run, room on against off.** Per engine, the same scripted write-and-run task through
   ``holon-agent`` with ``HOLON_SANDBOX=on`` and ``=off``, alternating pair by pair after one
   warm-up pair (dropped) so drift hits both. The real engines talk to the scripted model
   server (this process, plain HTTP) through the gateway, as a default run does; with the room
   on, through its bridge. The replay engine plays the same task without a model. Per run: the
   wall time and the CPU of ``holon-agent`` and all its children (``RUSAGE_CHILDREN`` deltas
   around the subprocess; the scripted server's CPU, in this process, is not counted).
   Medians, the difference and the ratio. Goals: under 50 ms and 5 % CPU added.
2. **A download through the egress proxy.** A child process serves ``--mib`` MiB on
   127.0.0.1 (``socket.sendfile``); ``curl`` reads it (its own ``speed_download``):
   - direct, from the host;
   - through the room's proxy alone: :class:`~holon_core.sandbox.proxy.RoomNetwork` in this
     process on a Unix socket (a policy allowing a pinned name, as ``HOLON_ALLOW_HOSTS`` +
     ``HOLON_SANDBOX_RESOLVE`` give), ``curl --unix-socket``;
   - through the room's loopback forwarder (``room_init.py`` as a process on the host) and
     the proxy: what the engine's traffic crosses, minus the namespaces;
   - inside a real room: a replay-engine ``holon-agent`` run whose ``run:`` step curls the
     file through ``HTTP_PROXY`` (``HOLON_ALLOW_HOSTS``/``HOLON_SANDBOX_RESOLVE`` set).
   Alternating, medians; the goal is at least half the direct throughput.
3. **The model endpoint's bridge.** Small HTTP requests (a 2-byte answer) to the same child
   server direct and through ``room_init``'s forwarder to a ``RoomNetwork`` bridge socket:
   on one kept-alive connection and on a new connection each, alternating; median added ms.

Nothing is asserted. The machine is shared: the load average is printed with the figures.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import os
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from holon_conformance.provider import ScriptedProvider

from holon_core.engine.adapter import LaunchPlan
from holon_core.process.reaper import become_subreaper
from holon_core.sandbox import room_init
from holon_core.sandbox.bwrap import probe
from holon_core.sandbox.mounts import interpreter_paths
from holon_core.sandbox.policy import AllowRule, NetworkPolicy
from holon_core.sandbox.proxy import RoomNetwork
from holon_core.sandbox.room import RoomPaths, open_room
from holon_core.testing import make_task
from holon_core.testing.agent_run import agent_argv, agent_env, collect

GOAL = "Create hello.txt"
#: The scripted write-and-run task, for the replay engine (no model): a write, a command.
REPLAY_STEPS: list[Any] = [
    {"say": "writing hello.txt"},
    {"write": {"path": "hello.txt", "content": "hello\n"}},
    {"run": "cat hello.txt"},
    {"say": "done"},
]
#: Per engine: settings that keep a failing call from retrying for minutes.
SETTINGS = {
    "replay": {},
    "claude": {"HOLON_CLAUDE_MAX_RETRIES": "1"},
    "codex": {"HOLON_SILENCE_TIMEOUT": "20"},
    "gemini": {"HOLON_GEMINI_MAX_ATTEMPTS": "1"},
    "opencode": {"HOLON_OPENCODE_MAX_RETRIES": "1"},
}
NAME = "blob.holon-bench.example"
CURL_FORMAT = "%{speed_download} %{size_download} %{http_code}\\n"


def own_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime


def children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def reap_orphans() -> None:
    """Reap what was orphaned to this process (a subreaper, see ``main``): bwrap's outer
    process exits as soon as the room's pid 1 reports the exit status, without reaping it, so
    the room's CPU (the engine's) reaches ``RUSAGE_CHILDREN`` only through the subreaper that
    inherits it. Waits up to ~0.25 s for an orphan still exiting."""
    reaped = False
    for _ in range(25):
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid:
            reaped = True
        elif reaped:
            return
        else:
            time.sleep(0.01)


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def agent_run(
    engine: str, task_root: Path, env: dict[str, str], replay: list[Any] | None = None
) -> tuple[float, float, Path]:
    """(wall s, CPU s of holon-agent and its children, output dir) of one successful run."""
    task = make_task(task_root, goal=GOAL, files={"README.md": "hi\n"}, replay=replay)
    argv = agent_argv(task, engine)
    cpu, started = children_cpu(), time.perf_counter()
    done = subprocess.run(
        argv,
        env=agent_env(env),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    wall = time.perf_counter() - started
    reap_orphans()
    cpu = children_cpu() - cpu
    result = collect(task.output, done.returncode, done.stdout, done.stderr)
    if result.manifest is None or result.manifest["outcome"] != "success":
        raise SystemExit(f"{engine}: a run did not succeed:\n{done.stderr[-2000:]}")
    return wall, cpu, task.output


# -- 1. a run, room on against off ------------------------------------------------------------


def run_pairs(engine: str, pairs: int, scratch: Path) -> dict[str, list[tuple[float, float]]]:
    figures: dict[str, list[tuple[float, float]]] = {"off": [], "on": []}
    with contextlib.ExitStack() as stack:
        if engine == "replay":
            base: dict[str, str] = {}
            replay: list[Any] | None = REPLAY_STEPS
        else:
            server = stack.enter_context(ScriptedProvider("write-and-run"))
            base, replay = server.engine_env(engine), None
        base |= SETTINGS.get(engine, {})
        for index in range(pairs + 1):  # the first pair warms the caches and is dropped
            order = ("off", "on") if index % 2 else ("on", "off")  # who goes first alternates
            for mode in order:
                root = scratch / f"{engine}-{mode}-{index}"
                wall, cpu, _ = agent_run(engine, root, base | {"HOLON_SANDBOX": mode}, replay)
                if index:
                    figures[mode].append((wall, cpu))
                shutil.rmtree(root, ignore_errors=True)
    return figures


def report_runs(engine: str, figures: dict[str, list[tuple[float, float]]]) -> None:
    wall = {k: statistics.median(w for w, _ in v) * 1e3 for k, v in figures.items()}
    cpu = {k: statistics.median(c for _, c in v) * 1e3 for k, v in figures.items()}
    best = {k: min(w for w, _ in v) * 1e3 for k, v in figures.items()}
    print(
        f"{engine:9} {wall['off']:8.0f} {wall['on']:8.0f} {wall['on'] - wall['off']:+7.0f} "
        f"{wall['on'] / wall['off']:6.3f}   {cpu['off']:8.0f} {cpu['on']:8.0f} "
        f"{cpu['on'] - cpu['off']:+7.0f} {cpu['on'] / cpu['off']:6.3f}   "
        f"{best['off']:6.0f} {best['on']:6.0f} {best['on'] - best['off']:+6.0f}",
        flush=True,
    )


# -- 2. and 3.: the child file server, the proxy, the forwarder --------------------------------


def serve_blob(mib: int) -> None:
    """Child mode: HTTP on 127.0.0.1, ``/blob`` is ``mib`` MiB (sendfile), anything else 2 bytes;
    keep-alive unless the request says ``Connection: close``. Prints the port, runs until stdin
    closes."""
    blob = tempfile.NamedTemporaryFile(prefix="holon-bench-blob-")  # noqa: SIM115 - lives on
    block = os.urandom(1 << 20)
    for _ in range(mib):
        blob.write(block)
    blob.flush()
    size = mib << 20
    listener = socket.create_server(("127.0.0.1", 0), backlog=128)

    def handle(conn: socket.socket) -> None:
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        pending = b""
        with conn, open(blob.name, "rb") as source:
            while True:
                while b"\r\n\r\n" not in pending:
                    data = conn.recv(65536)
                    if not data:
                        return
                    pending += data
                head, _, pending = pending.partition(b"\r\n\r\n")
                path = head.split(b" ", 2)[1]
                close = b"connection: close" in head.lower()
                big = path.endswith(b"/blob")
                length = size if big else 2
                conn.sendall(
                    b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
                    b"Content-Length: %d\r\n%s\r\n" % (length, b"Connection: close\r\n" * close)
                )
                if big:
                    source.seek(0)
                    conn.sendfile(source)
                else:
                    conn.sendall(b"ok")
                if close:
                    return

    def accept() -> None:
        while True:
            conn, _ = listener.accept()
            threading.Thread(target=handle, args=(conn,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    print(listener.getsockname()[1], flush=True)
    try:
        sys.stdin.read()
    finally:
        blob.close()  # deletes it: the threads' closures would keep it past exit


@contextlib.contextmanager
def blob_server(mib: int) -> Iterator[int]:
    child = subprocess.Popen(
        [sys.executable, "-m", "bench.sandbox_overhead", "--serve-blob", str(mib)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None and child.stdin is not None
    try:
        yield int(child.stdout.readline())
    finally:
        child.stdin.close()
        child.wait(timeout=20)


@contextlib.contextmanager
def room_network(port: int, sockets: Path) -> Iterator[tuple[str, str]]:
    """RoomNetwork in this process: (proxy socket, bridge socket to 127.0.0.1:port)."""
    policy = NetworkPolicy(allow=(AllowRule(NAME, port),), pinned={(NAME, port): "127.0.0.1"})
    proxy, bridge = str(sockets / "proxy.sock"), str(sockets / "bridge.sock")
    network = RoomNetwork(policy, proxy, {bridge: ("127.0.0.1", port)}, lambda _: None)
    network.start()
    try:
        yield proxy, bridge
    finally:
        time.sleep(0.5)  # the last connection's tasks finish (stop() cancels what still runs)
        network.stop()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def forwarder(target: str) -> Iterator[int]:
    """``room_init.py`` as the room starts it (``python -I -S``), on the host: a loopback port
    carried to ``target``; ``cat`` stands for the engine and ends when its stdin closes."""
    port = free_port()
    child = subprocess.Popen(
        [sys.executable, "-I", "-S", room_init.__file__, f"{port}={target}", "--", "cat"],
        stdin=subprocess.PIPE,
    )
    assert child.stdin is not None
    try:
        for _ in range(200):  # listening before the engine (cat) starts: wait for the port
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.01)
        yield port
    finally:
        child.stdin.close()
        child.wait(timeout=10)


def curl(url: str, size: int, *extra: str) -> float:
    """MiB/s of one download of ``size`` bytes, as curl measured it."""
    argv = ["curl", "-sS", "-o", "/dev/null", "-w", CURL_FORMAT, *extra, url]
    done = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=120)
    if done.returncode != 0:
        raise SystemExit(f"curl {' '.join(extra)} {url}: {done.stderr}")
    return speed_of(done.stdout, size)


def speed_of(line: str, size: int) -> float:
    """MiB/s from curl's ``CURL_FORMAT`` line; SystemExit unless the whole file came (200)."""
    speed, got, status = line.split()
    if status != "200" or int(got) != size:
        raise SystemExit(f"a download failed: HTTP {status}, {got} of {size} bytes")
    return float(speed) / 2**20


def room_download(port: int, size: int, scratch: Path, index: int) -> tuple[float, float]:
    """(MiB/s curl saw inside a room, the run's wall s): a replay run through HTTP_PROXY."""
    out = "{output}/speed.txt"
    command = f"curl -sS -o /dev/null -w '{CURL_FORMAT}' http://{NAME}:{port}/blob > {out}"
    env = {
        "HOLON_SANDBOX": "on",
        "HOLON_ALLOW_HOSTS": f"{NAME}:{port}",
        "HOLON_SANDBOX_RESOLVE": f"{NAME}:{port}:127.0.0.1",
    }
    root = scratch / f"download-{index}"
    wall, _, output = agent_run("replay", root, env, [{"run": command}])
    speed = speed_of((output / "speed.txt").read_text(), size)
    shutil.rmtree(root, ignore_errors=True)
    return speed, wall


def throughput(mib: int, rounds: int, scratch: Path) -> None:
    rates: dict[str, list[float]] = {"direct": [], "proxy": [], "forwarder": [], "room": []}
    proxy_cpu: list[float] = []
    size = mib << 20
    sockets = Path(tempfile.mkdtemp(prefix="holon-bench-", dir="/tmp"))
    with (
        blob_server(mib) as port,
        room_network(port, sockets) as (proxy, _),
        forwarder(proxy) as proxy_port,
    ):
        url = f"http://{NAME}:{port}/blob"
        direct = ("--resolve", f"{NAME}:{port}:127.0.0.1")
        via_socket = ("--unix-socket", proxy, "--request-target", url)  # what -x would send
        via_forwarder = ("-x", f"http://127.0.0.1:{proxy_port}")
        for index in range(rounds + 1):  # the first round warms up and is dropped
            got = {"direct": curl(url, size, *direct)}
            cpu = own_cpu()  # this process only waits on curl: its CPU is RoomNetwork's
            got["proxy"] = curl(url, size, *via_socket)
            if index:
                proxy_cpu.append((own_cpu() - cpu) * 1e3 / mib)
            got |= {
                "forwarder": curl(url, size, *via_forwarder),
                "room": room_download(port, size, scratch, index)[0],
            }
            if index:
                for key, value in got.items():
                    rates[key].append(value)
    shutil.rmtree(sockets, ignore_errors=True)
    median = {k: statistics.median(v) for k, v in rates.items()}
    print(f"\na {mib} MiB download, curl's speed_download, median of {rounds} (MiB/s):")
    labels = {
        "direct": "direct (host curl -> server)",
        "proxy": "proxy only (curl --unix-socket -> RoomNetwork)",
        "forwarder": "room_init forwarder + proxy (on the host)",
        "room": "inside a room (replay run, curl via HTTP_PROXY)",
    }
    for key, label in labels.items():
        ratio = median[key] / median["direct"]
        spread = f"{min(rates[key]):.0f}-{max(rates[key]):.0f}"
        print(f"  {label:50} {median[key]:8.0f}  ({spread})  ratio {ratio:.2f}")
    print(f"  the proxy's CPU (RoomNetwork's thread): {statistics.median(proxy_cpu):.2f} ms/MiB")


def timed_requests(port: int, count: int, keep_alive: bool) -> list[float]:
    """ms per GET of the 2-byte answer on 127.0.0.1:port."""
    times: list[float] = []
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    for _ in range(count):
        started = time.perf_counter()
        if not keep_alive:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("GET", "/small")
        body = conn.getresponse().read()
        times.append((time.perf_counter() - started) * 1e3)
        assert body == b"ok"
        if not keep_alive:
            conn.close()
    conn.close()
    return times


def bridge_latency(requests: int) -> None:
    sockets = Path(tempfile.mkdtemp(prefix="holon-bench-", dir="/tmp"))
    rows: dict[str, dict[str, list[float]]] = {
        "kept-alive connection": {"direct": [], "bridge": []},
        "new connection each": {"direct": [], "bridge": []},
    }
    with (
        blob_server(1) as port,
        room_network(port, sockets) as (_, bridge),
        forwarder(bridge) as via,
    ):
        for label, keep in (("kept-alive connection", True), ("new connection each", False)):
            timed_requests(port, 20, keep)  # warm up both
            timed_requests(via, 20, keep)
            for _ in range(10):  # alternate in blocks so drift hits both
                rows[label]["direct"] += timed_requests(port, requests // 10, keep)
                rows[label]["bridge"] += timed_requests(via, requests // 10, keep)
    shutil.rmtree(sockets, ignore_errors=True)
    print(f"\nthe model bridge: {requests} small GETs each way, medians (ms):")
    for label, got in rows.items():
        direct, bridged = statistics.median(got["direct"]), statistics.median(got["bridge"])
        print(
            f"  {label:22} direct {direct:6.3f}  via forwarder + bridge {bridged:6.3f}  "
            f"added {bridged - direct:6.3f}"
        )


# -- 4. where a room's start goes --------------------------------------------------------------


def timed_process(argv: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """(wall ms, CPU ms of it and its children) of one process run to its end."""
    cpu, started = children_cpu(), time.perf_counter()
    subprocess.run(argv, env=env, stdin=subprocess.DEVNULL, capture_output=True, check=True)
    wall = (time.perf_counter() - started) * 1e3
    reap_orphans()
    return wall, (children_cpu() - cpu) * 1e3


def start_costs(reps: int, scratch: Path) -> None:
    """The pieces a room adds to a launch, each around ``/bin/true``, alternating."""
    found = probe(os.environ)
    bwrap = found.path
    if bwrap is None or found.problem is not None:
        print(f"\nno room here: {found.problem}")
        return
    work = scratch / "profile"
    work.mkdir()
    base = {"PATH": "/usr/bin:/bin"}
    plan = LaunchPlan(argv=["/bin/true"], env=base, cwd=work)
    paths = RoomPaths(readable=interpreter_paths(), writable=[work])
    probe_argv = [bwrap, "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/"]
    probe_argv += ["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--", "/bin/true"]
    init = [sys.executable, "-I", "-S", room_init.__file__]
    opened: list[float] = []

    def in_room() -> tuple[float, float]:
        started = time.perf_counter()
        wrapped, room = open_room(plan, found, paths, NetworkPolicy(), [], lambda _: None)
        opened.append((time.perf_counter() - started) * 1e3)
        try:
            return timed_process(wrapped.argv, wrapped.env)
        finally:
            room.close()

    pieces: dict[str, Callable[[], tuple[float, float]]] = {
        "/bin/true": lambda: timed_process(["/bin/true"], base),
        "bwrap --version (the admission)": lambda: timed_process([bwrap, "--version"]),
        "the admission's probe room": lambda: timed_process(probe_argv, base),
        "room_init on the host (-I -S)": lambda: timed_process([*init, "--", "/bin/true"], base),
        "the run's room: bwrap + mounts + room_init": in_room,
    }
    got: dict[str, list[tuple[float, float]]] = {name: [] for name in pieces}
    for index in range(reps + 1):
        for name, piece in pieces.items():
            measured = piece()
            if index:
                got[name].append(measured)
    print(f"\nwhere a room's start goes: each around /bin/true, medians of {reps} (ms)")
    for name, values in got.items():
        wall = statistics.median(w for w, _ in values)
        cpu = statistics.median(c for _, c in values)
        print(f"  {name:45} wall {wall:7.1f}   CPU {cpu:7.1f}")
    label = "open_room() in holon-agent (RoomNetwork up)"
    print(f"  {label:45} wall {statistics.median(opened):7.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", default="replay,claude,codex,gemini,opencode")
    parser.add_argument("--pairs", type=int, default=6)
    parser.add_argument("--mib", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=5, help="downloads each way")
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--skip-runs", action="store_true", help="only parts 2 to 4")
    parser.add_argument("--profile-reps", type=int, default=15)
    parser.add_argument("--serve-blob", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_blob:
        serve_blob(args.serve_blob)
        return
    become_subreaper()  # so the room's processes' CPU is counted (reap_orphans)
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY"):
        os.environ.pop(name, None)
    print(f"load average at start: {load()} ({os.cpu_count()} CPUs)")
    with tempfile.TemporaryDirectory(prefix="holon-bench-sandbox-") as tmp:
        scratch = Path(tmp)
        if not args.skip_runs:
            print(
                f"\nholon-agent, write-and-run, room off vs on: medians of {args.pairs} "
                "alternating pairs (ms; CPU = holon-agent and all its children)"
            )
            print(
                f"{'engine':9} {'wall off':>8} {'wall on':>8} {'added':>7} {'ratio':>6}   "
                f"{'CPU off':>8} {'CPU on':>8} {'added':>7} {'ratio':>6}   "
                f"{'best':>6} {'best':>6} {'added':>6}"
            )
            for engine in args.engines.split(","):
                report_runs(engine, run_pairs(engine, args.pairs, scratch))
            print(f"load average after the runs: {load()}")
        throughput(args.mib, args.rounds, scratch)
        bridge_latency(args.requests)
        start_costs(args.profile_reps, scratch)
    print(f"\nload average at the end: {load()}")


if __name__ == "__main__":
    main()
