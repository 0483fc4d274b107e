"""``holon batch``: 20 replay cells on the local executor (concurrency 2) against 20 sequential
``holon run`` processes, and the Ray executor's overhead per run on a one-node local cluster.

Usage: ``python -m bench.batch_local [--cells 20] [--no-ray]``. Prints wall times and the
ratio; the Ray figure is (ray batch wall - local batch wall) / cells at the same concurrency,
cluster start excluded (the driver's connect is included). The machine is shared: compare
figures from the same run only.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil
import yaml

STEPS = [
    {"write": {"path": "hello.txt", "content": "hello from holon\n"}},
    {"run": "cat hello.txt"},
    {"say": "done"},
]
HOLON = [sys.executable, "-m", "holon_core"]


def make_job(root: Path, cells: int) -> Path:
    (root / "ws").mkdir(parents=True)
    (root / "ws" / "README.md").write_text("bench\n")
    (root / "context").mkdir()
    (root / "context" / "replay.yaml").write_text(yaml.safe_dump(STEPS))
    spec = {"version": "v1", "kind": "Holon", "metadata": {"name": "b"}, "goal": "write hello"}
    (root / "spec.yaml").write_text(yaml.safe_dump(spec))
    job = {
        "tasks": [{"id": "t", "spec": "spec.yaml", "workspace": "ws", "context": "context"}],
        "matrix": {"engines": ["replay"], "attempts": cells},
        "limits": {"concurrency": 2},
        "ray": {"num_cpus": 0.5},
    }
    (root / "job.yaml").write_text(yaml.safe_dump(job))
    return root / "job.yaml"


def timed(argv: list[str], env: dict[str, str] | None = None) -> float:
    started = time.monotonic()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    elapsed = time.monotonic() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv[:5])} failed:\n{done.stderr[-2000:]}")
    return elapsed


def sequential(root: Path, cells: int) -> float:
    started = time.monotonic()
    for _ in range(cells):
        argv = [*HOLON, "run", str(root / "spec.yaml"), "--workspace", str(root / "ws")]
        argv += ["--context", str(root / "context"), "--engine", "replay", "--quiet"]
        argv += ["--runs-dir", str(root / "seq-runs")]
        timed(argv)
    return time.monotonic() - started


def start_head(temp: Path, env: dict[str, str]) -> tuple[str, int]:
    """A one-node Ray cluster in its own session (killed by session id afterwards). Ray gives
    a node 30 s to register: on a loaded machine that can pass, so it is tried 3 times."""
    for _try in range(3):
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        ray = str(Path(sys.executable).with_name("ray"))
        argv = [ray, "start", "--head", "--port", str(port), "--num-cpus", "2"]
        argv += ["--node-ip-address", "127.0.0.1", "--include-dashboard=false"]
        argv += ["--disable-usage-stats", "--temp-dir", str(temp)]
        argv += ["--resources", json.dumps({"holon_engine_replay": 2})]
        proc = subprocess.Popen(
            argv,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        if proc.wait(timeout=300) == 0:
            return f"127.0.0.1:{port}", proc.pid
        stop_session(proc.pid)
    raise SystemExit("ray start --head failed 3 times")


def stop_session(session: int) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        procs = []
        for proc in psutil.process_iter():
            try:
                if os.getsid(proc.pid) == session:
                    proc.send_signal(sig)
                    procs.append(proc)
            except (OSError, psutil.Error):
                continue
        psutil.wait_procs(procs, timeout=10)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cells", type=int, default=20)
    parser.add_argument("--no-ray", action="store_true")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="hbb", dir="/tmp"))
    try:
        job = make_job(root, args.cells)
        seq = sequential(root, args.cells)
        local = timed([*HOLON, "batch", str(job), "--quiet", "--results", str(root / "local")])
        print(f"{args.cells} sequential holon run:        {seq:7.1f} s")
        print(f"holon batch local, concurrency 2: {local:7.1f} s")
        print(f"ratio sequential / batch:         {seq / local:7.2f}x")
        if not args.no_ray:
            env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "disabled"}
            address, session = start_head(root / "ray", env)
            try:
                argv = [*HOLON, "batch", str(job), "--quiet", "--results", str(root / "ray-res")]
                ray = timed([*argv, "--executor", "ray", "--address", address], env)
            finally:
                stop_session(session)
            print(f"holon batch ray, concurrency 2:   {ray:7.1f} s")
            print(f"ray overhead per run:             {(ray - local) / args.cells * 1000:7.0f} ms")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
