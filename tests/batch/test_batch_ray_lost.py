"""``holon batch --executor ray`` when the whole Ray cluster dies under it (issue 32): the
batch must end, not wait for Ray to come back, and ``--resume`` must finish the job.

A one-node cluster (the head: GCS, raylet, workers) runs a job whose first two cells are
quick and whose last three wait for a gate file in their workspace; once two gated cells
wait, every process of the head is SIGKILLed at once. The fifth cell has not started yet
(concurrency 2). The gate is then put in the task's workspace, which the resumed batch
sends to the new cluster: its cells pass at once.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psutil
import pytest

from holon_core.batch.ray_executor import ClusterWatch
from holon_core.batch.results import CellResult
from holon_core.batch.retry import is_infrastructure

from .kit import REPLAY_STEPS, batch_argv, context_dir, results, spec_data, write, write_job
from .ray_cluster import RayCluster
from .test_batch_ray import driver_env

QUICK, GATED = ("t0", "t1"), ("t2", "t3", "t4")
#: The job's ``ray.lost_after``: shorter than the default 30 s (the head is killed outright,
#: not slow), long enough that a loaded machine's slow GCS answers are not taken for a loss.
LOST_AFTER = 12


def wait_for(check: Callable[[], bool], what: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)


def tasks(root: Path, gate_step: str) -> list[dict[str, Any]]:
    context_dir(root / "quick", REPLAY_STEPS)
    context_dir(root / "gated", [{"run": gate_step}, *REPLAY_STEPS])
    write(root / "ws", "README.md", "hi\n")
    context = {t: "quick" for t in QUICK} | {t: "gated" for t in GATED}
    return [
        {"id": t, "spec": spec_data(t), "workspace": "ws", "context": context[t]} for t in context
    ]


def at_gate(step: str) -> list[psutil.Process]:
    """The shells of gated cells waiting right now (run by the replay engine, any session)."""
    found = []
    for proc in psutil.process_iter():
        try:
            if proc.cmdline()[-1:] == [step]:
                found.append(proc)
        except psutil.Error:
            continue
    return found


@pytest.mark.timeout(1200)
def test_lost_cluster_ends_the_batch_and_resume_finishes_it(tmp_path: Path) -> None:
    gate = f"gate-{uuid.uuid4().hex[:12]}"  # in the workspace (the run's cwd), unique
    step = f"until [ -e {gate} ]; do sleep 0.2; done"
    job = write_job(
        tmp_path,
        tasks(tmp_path, step),
        ["replay"],
        limits={"concurrency": 2, "timeout": "10m", "backoff": "100ms"},
        ray={"num_cpus": 0.25, "lost_after": LOST_AFTER},
    )
    out = tmp_path / "job.results"
    first = RayCluster(dict(os.environ))
    waiting: list[psutil.Process] = []
    try:
        first.start_node({"holon_engine_replay": 2}, head=True)
        argv = batch_argv(job, "--executor", "ray", "--address", first.address)
        proc = subprocess.Popen(
            argv, env=driver_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        try:
            wait_for(
                lambda: len(at_gate(step)) == 2 or proc.poll() is not None,
                "two gated cells at work",
                600,
            )
            assert proc.poll() is None, proc.communicate()  # the cells ended before the gate
            waiting = at_gate(step)
            first.kill_node(0)
            killed = time.monotonic()
            stdout, stderr = proc.communicate(timeout=300)
            took = time.monotonic() - killed
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    finally:
        first.stop()
        for shell in at_gate(step):  # never left behind, whatever the assertions say below
            shell.kill()

    print(f"the batch ended {took:.1f} s after the cluster was killed")
    assert took < LOST_AFTER + 45, (took, stderr)
    assert proc.returncode == 1, stderr + stdout
    lost = f"the Ray cluster at {first.address} was lost"
    assert lost in stderr, stderr
    assert "3 cells did not finish" in stderr and "--resume" in stderr, stderr
    rows = results(out)
    assert [(r["cell"], r["outcome"], r["reason"]) for r in rows] == [
        (f"{t}.replay.1", "success", "ok") for t in QUICK
    ] + [(f"{t}.replay.1", "failure", "lost_worker") for t in GATED]
    for row in rows[len(QUICK) :]:
        assert lost in row["error"] and "--resume" in row["error"], row
        assert row["run_dir"] is None
        assert is_infrastructure(CellResult.from_dict(row))
        cell = json.loads((out / "cells" / row["cell"] / "cell.json").read_text())
        assert cell["reason"] == "lost_worker"
    kept = {r["cell"]: r for r in rows[: len(QUICK)]}
    # the gated cells' holon run (and its engine step) end with their worker
    _gone, alive = psutil.wait_procs(waiting, timeout=60)
    assert alive == [], alive

    (tmp_path / "ws" / gate).touch()
    second = RayCluster(dict(os.environ))
    try:
        second.start_node({"holon_engine_replay": 2}, head=True)
        argv = batch_argv(job, "--executor", "ray", "--address", second.address, "--resume")
        done = subprocess.run(
            argv, env=driver_env(), capture_output=True, text=True, check=False, timeout=600
        )
    finally:
        second.stop()
    assert done.returncode == 0, done.stderr + done.stdout
    rows = results(out)
    assert [(r["cell"], r["outcome"], r["reason"]) for r in rows] == [
        (f"{t}.replay.1", "success", "ok") for t in (*QUICK, *GATED)
    ]
    for row in rows:
        if row["cell"] in kept:  # kept as they were: not run again
            assert row == kept[row["cell"]]
        assert len(list((out / "cells" / row["cell"]).glob("run-*"))) == 1, row
    assert {r["node"] for r in rows if r["cell"] not in kept}.isdisjoint(
        {r["node"] for r in kept.values()}
    )  # the rest ran on the new cluster


class FakeRay:
    """What :class:`ClusterWatch` asks of Ray, without a cluster: ``ray.nodes()``."""

    def __init__(self) -> None:
        self.answer: list[dict[str, Any]] | BaseException = [{"NodeID": "me", "Alive": True}]

    def get_runtime_context(self) -> Any:
        return type("Context", (), {"get_node_id": lambda _self: "me"})()

    def nodes(self) -> list[dict[str, Any]]:
        if isinstance(self.answer, BaseException):
            raise self.answer
        return self.answer


def test_watch_counts_a_silent_gcs_as_lost_after_the_grace() -> None:
    ray = FakeRay()
    watch = ClusterWatch(ray, "at h:1", grace=1.0, every=0.05)
    try:
        time.sleep(0.3)
        assert watch.lost() is None
        ray.answer = ConnectionError("refused")
        wait_for(lambda: watch.lost() is not None, "the watch to give up", 10)
        lost = watch.lost()
        assert lost is not None and lost.startswith("the Ray cluster at h:1 was lost: its GCS")
        assert "ConnectionError: refused" in lost
    finally:
        watch.stop()


def test_watch_counts_the_drivers_dead_node_as_lost_at_once() -> None:
    ray = FakeRay()
    watch = ClusterWatch(ray, "at h:1", grace=60.0, every=0.05)
    try:
        ray.answer = [{"NodeID": "me", "Alive": False}, {"NodeID": "other", "Alive": True}]
        wait_for(lambda: watch.lost() is not None, "the watch to see the node", 10)
        assert "the node this driver is attached to (me) is dead" in str(watch.lost())
    finally:
        watch.stop()
