"""``holon batch --executor ray`` on a REAL two-node Ray cluster on this machine (each node
its own ``ray start``), the real engines and the scripted model server.

The nodes, not the driver, hold the engines' variables (given to ``ray start``): the batch
process runs without any credential, which is how credentials reach workers.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
from holon_conformance.provider import ScriptedProvider, load_scenario

from .kit import (
    ENGINES,
    EXPECTED,
    REPLAY_STEPS,
    batch_argv,
    four_tasks,
    manifest,
    provider_env,
    replay_tasks,
    results,
    scenario_429,
    table,
    write_job,
)
from .ray_cluster import RayCluster

#: Starting the module's cluster (up to 4 tries of ``ray start``) counts in the first test.
pytestmark = pytest.mark.timeout(1500)

#: What the driver runs with: no engine credential, no endpoint.
SECRET_VARS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_BASE_URL")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RayCluster, str]]:
    """Head offers claude, the worker node codex, both replay: where a cell ran is known."""
    scenario = scenario_429(tmp_path_factory.mktemp("scenario"))
    with ScriptedProvider(load_scenario(scenario)) as provider:
        env = provider_env(provider)
        ray = RayCluster({**os.environ, **env})
        try:
            ray.start_node({"holon_engine_replay": 2, "holon_engine_claude": 2}, head=True)
            ray.start_node({"holon_engine_replay": 2, "holon_engine_codex": 2}, head=False)
            yield ray, env["ANTHROPIC_API_KEY"]
        finally:
            ray.stop()
    assert ray.processes() == []


def driver_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in SECRET_VARS}
    return {**env, "RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0"}


def batch(job: Path, address: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        batch_argv(job, "--executor", "ray", "--address", address, *args),
        env=driver_env(),
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )


def test_twelve_cells_on_two_nodes(cluster: tuple[RayCluster, str], tmp_path: Path) -> None:
    """The same outcomes as the local executor, in the same layout; claude cells ran on the
    head and codex cells on the other node (their engine resources), so both nodes worked."""
    ray, key = cluster
    job = write_job(
        tmp_path,
        four_tasks(tmp_path),
        ENGINES,
        limits={"concurrency": 4, "timeout": "5m", "backoff": "100ms"},
        ray={"num_cpus": 0.5, "memory": "256MiB"},
    )
    done = batch(job, ray.address)
    assert done.returncode == 0, done.stderr + done.stdout
    out = tmp_path / "job.results"
    rows = results(out)
    assert table(rows) == EXPECTED
    nodes = {engine: {r["node"] for r in rows if r["engine"] == engine} for engine in ENGINES}
    assert len(nodes["claude"]) == 1 and len(nodes["codex"]) == 1
    assert nodes["claude"] != nodes["codex"]  # spread over both nodes
    assert nodes["replay"] <= nodes["claude"] | nodes["codex"]
    for row in rows:
        assert Path(row["run_dir"]).parent == out / "cells" / row["cell"]
        assert manifest(row)["outcome"] == "success"
        if row["engine"] != "replay":
            assert row["tokens"]["total"] > 0, row
    assert sum(r["tries"] for r in rows if r["engine"] == "claude") == 5  # the 429, retried
    for path in out.rglob("*"):
        if path.is_file() and not path.is_symlink():
            assert key.encode() not in path.read_bytes(), path


def ray_task_workers(ray: RayCluster) -> list[psutil.Process]:
    """Ray worker processes running one of our cells right now (an engine step below)."""
    found = []
    for proc in ray.processes():
        try:
            if "_remote_cell" not in proc.name() + " ".join(proc.cmdline()[:1]):
                continue
            if any(c.cmdline()[-1:] == ["sleep 4"] for c in proc.children(recursive=True)):
                found.append(proc)
        except psutil.Error:
            continue
    return found


def test_lost_worker_is_retried_and_recorded_once(
    cluster: tuple[RayCluster, str], tmp_path: Path
) -> None:
    """SIGKILL a Ray worker mid-run: Ray runs the cell again, the cell is recorded once with
    one run dir, and the killed worker's holon run and engine do not keep running."""
    ray, _key = cluster
    steps = [{"run": "sleep 4"}, *REPLAY_STEPS]
    job = write_job(tmp_path, replay_tasks(tmp_path, 4, steps), ["replay"], ray={"num_cpus": 0.5})
    killed: list[psutil.Process] = []
    orphans: list[psutil.Process] = []

    def kill_one() -> None:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and not killed:
            for worker in ray_task_workers(ray):
                orphans.extend(worker.children(recursive=True))
                worker.send_signal(signal.SIGKILL)
                killed.append(worker)
                return
            time.sleep(0.2)

    killer = threading.Thread(target=kill_one, daemon=True)
    killer.start()
    done = batch(job, ray.address)
    killer.join(timeout=330)
    assert killed, "no Ray worker was seen running a cell"
    assert done.returncode == 0, done.stderr + done.stdout
    rows = results(tmp_path / "job.results")
    assert [(r["cell"], r["outcome"]) for r in rows] == [
        (f"t{i}.replay.1", "success") for i in range(4)
    ]
    for row in rows:
        assert len(list(Path(row["run_dir"]).parent.glob("run-*"))) == 1
    assert orphans  # the killed worker's holon run, agent and engine step
    _gone, alive = psutil.wait_procs(orphans, timeout=60)
    assert alive == [], alive


def test_missing_engine_resource_is_refused(
    cluster: tuple[RayCluster, str], tmp_path: Path
) -> None:
    """A task asking for a resource no node has would wait forever: refused up front."""
    ray, _key = cluster
    job = write_job(tmp_path, replay_tasks(tmp_path, 1, REPLAY_STEPS), ["gemini"])
    done = batch(job, ray.address)
    assert done.returncode == 1
    assert "no node of the Ray cluster offers holon_engine_gemini" in done.stderr
    assert "ray start --resources" in done.stderr
