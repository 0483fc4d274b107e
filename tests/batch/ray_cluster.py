"""A real Ray cluster of separate nodes on this machine, each its own ``ray start``.

Every node is started in a new session, so teardown kills exactly the processes of our
nodes (never another cluster on the machine: ``ray stop`` would). Small and offline: one
CPU a node, no dashboard, no usage stats, 127.0.0.1 only.

Patient with a loaded machine: Ray's GCS marks a node dead once its raylet misses
``health_check_failure_threshold`` health checks in a row (Ray's defaults: one every 3 s,
10 s to answer, 5 misses), which a busy test machine can do ("raylet has lagging heartbeats
due to slow network or busy workload"): the node, and the cluster with the head, went away
under a running test. Here a check gets 30 s and a node 10 misses (one every 5 s): a hung
raylet is declared dead after about 6 minutes, a crashed one (refused at once) after ~50 s.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

import psutil

RAY = str(Path(sys.executable).with_name("ray"))
#: Ray's GCS health checks of each raylet (ray 2.60: ray_config_def.h, read from RAY_<name>
#: by every process of the node), set for a loaded machine; see the module's docstring.
PATIENT = {
    "RAY_health_check_initial_delay_ms": "10000",
    "RAY_health_check_period_ms": "5000",
    "RAY_health_check_timeout_ms": "30000",
    "RAY_health_check_failure_threshold": "10",
}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class RayCluster:
    def __init__(self, env: Mapping[str, str]) -> None:
        # short: Ray's unix socket paths live under it (108 bytes at most)
        self.temp = Path(tempfile.mkdtemp(prefix="hray", dir="/tmp"))
        self.env = {**env, **PATIENT, "RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "disabled"}
        self.port = free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.sessions: list[int] = []

    def start_node(self, resources: Mapping[str, float], *, head: bool) -> None:
        """``ray start`` gives a node 30 s to register (fixed in Ray): on a loaded machine
        that can pass, so a node that did not come up is killed and started again."""
        for _tries in range(4):
            if self._start(resources, head=head):
                return
            self._kill(self.sessions.pop())
            if head:
                self.port = free_port()
                self.address = f"127.0.0.1:{self.port}"
        raise AssertionError(f"ray start failed 4 times; see {self.temp}")

    def _start(self, resources: Mapping[str, float], *, head: bool) -> bool:
        argv = [RAY, "start", "--num-cpus", "1", "--node-ip-address", "127.0.0.1"]
        argv += ["--resources", json.dumps(dict(resources)), "--disable-usage-stats"]
        argv += ["--dashboard-agent-listen-port", str(free_port()), "--include-log-monitor=false"]
        if head:
            argv += ["--head", "--port", str(self.port), "--include-dashboard=false"]
            argv += ["--dashboard-port", str(free_port()), "--temp-dir", str(self.temp)]
        else:
            argv += ["--address", self.address]
        log = (self.temp / f"ray-start-{len(self.sessions)}.log").open("ab")
        with log:
            proc = subprocess.Popen(
                argv, env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
            self.sessions.append(proc.pid)
            return proc.wait(timeout=300) == 0

    def processes(self) -> list[psutil.Process]:
        found = []
        for proc in psutil.process_iter():
            try:
                if os.getsid(proc.pid) in self.sessions:
                    found.append(proc)
            except (OSError, psutil.Error):
                continue
        return found

    def kill_node(self, index: int) -> None:
        """SIGKILL every process of node ``index`` (0: the head, its GCS and raylet) at once:
        a node that dies, not one that shuts down."""
        session = self.sessions.pop(index)
        procs = [p for p in psutil.process_iter() if _sid(p) == session]
        for proc in procs:
            try:
                proc.kill()
            except psutil.Error:
                continue
        psutil.wait_procs(procs, timeout=10)

    def stop(self) -> None:
        for session in list(self.sessions):
            self._kill(session)
        shutil.rmtree(self.temp, ignore_errors=True)

    def _kill(self, session: int) -> None:
        """Every process of ``session``, whether or not it is still in ``self.sessions`` (a
        failed start is popped first: its GCS was left running)."""
        for sig in (signal.SIGTERM, signal.SIGKILL):
            procs = [p for p in psutil.process_iter() if _sid(p) == session]
            for proc in procs:
                try:
                    proc.send_signal(sig)
                except psutil.Error:
                    continue
            psutil.wait_procs(procs, timeout=3 if sig == signal.SIGTERM else 10)


def _sid(proc: psutil.Process) -> int | None:
    try:
        return os.getsid(proc.pid)
    except OSError:
        return None
