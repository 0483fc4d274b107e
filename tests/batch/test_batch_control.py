"""Ctrl-C, a job killed halfway and ``--resume``, and bad job files (replay engine: the real
engine would add nothing to what is tested here)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import psutil
import pytest

from holon_core.cli.main import main

from .kit import (
    REPLAY_STEPS,
    batch_argv,
    replay_tasks,
    results,
    run_batch,
    table,
    write_job,
)

SLOW = [{"run": "sleep 60"}, *REPLAY_STEPS]


def wait_for(check: Callable[[], bool], what: str, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)


def engines_at_work(root: psutil.Process, step: str) -> list[psutil.Process]:
    """Processes below ``root`` running the replay step ``step`` (the engine is at work)."""
    found = []
    for proc in root.children(recursive=True):
        try:
            if proc.cmdline()[-1:] == [step]:
                found.append(proc)
        except psutil.Error:
            continue
    return found


def test_ctrl_c_cancels_every_run_cleanly(tmp_path: Path) -> None:
    """SIGINT to the batch's process group (a terminal's Ctrl-C): each running cell records a
    cancelled manifest, no new cell starts, nothing is left running, exit 1."""
    job = write_job(
        tmp_path, replay_tasks(tmp_path, 4, SLOW), ["replay"], limits={"concurrency": 2}
    )
    proc = subprocess.Popen(
        batch_argv(job),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a shell gives a foreground job
    )
    me = psutil.Process(proc.pid)
    try:
        wait_for(lambda: len(engines_at_work(me, "sleep 60")) == 2, "two engines at work")
        tree = me.children(recursive=True)
        os.killpg(proc.pid, signal.SIGINT)
        _out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 1, err
    assert "cancelled; 2 cells have no result" in err
    rows = results(tmp_path / "job.results")
    assert len(rows) == 2
    for row in rows:
        manifest = json.loads((Path(row["run_dir"]) / "output" / "manifest.json").read_text())
        assert manifest["metadata"]["reason"] == "cancelled", manifest
        assert row["reason"] == "cancelled" and row["tries"] == 1
    alive = [p for p in tree if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
    assert alive == [], alive


def test_killed_job_resumed_gives_the_same_table(tmp_path: Path) -> None:
    """SIGKILL the batch with one cell done and one running; ``--resume`` keeps the finished
    cell (same run dir), reruns the rest, and the table equals an uninterrupted job's."""
    steps = [{"run": "sleep 3"}, *REPLAY_STEPS]
    whole = write_job(tmp_path / "a", replay_tasks(tmp_path / "a", 3, steps), ["replay"])
    assert run_batch(whole, "--concurrency", "3").returncode == 0
    job = write_job(
        tmp_path / "b",
        replay_tasks(tmp_path / "b", 3, steps),
        ["replay"],
        limits={"concurrency": 1},
    )
    out = tmp_path / "b" / "job.results"
    proc = subprocess.Popen(batch_argv(job), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for((out / "cells" / "t0.replay.1" / "cell.json").exists, "cell t0")
        wait_for(lambda: engines_at_work(psutil.Process(proc.pid), "sleep 3") != [], "t1 at work")
    finally:
        proc.kill()
        proc.wait()
    kept = results(out)
    assert [r["cell"] for r in kept] == ["t0.replay.1"]
    again = run_batch(job)
    assert again.returncode == 1 and "--resume to continue it" in again.stderr
    resumed = run_batch(job, "--resume")
    assert resumed.returncode == 0, resumed.stderr
    rows = results(out)
    assert table(rows) == table(results(tmp_path / "a" / "job.results"))
    assert rows[0]["run_dir"] == kept[0]["run_dir"]  # not run again
    for row in rows:
        assert len(list(Path(row["run_dir"]).parent.glob("run-*"))) == 1  # the killed one is gone


@pytest.mark.parametrize(
    ("job", "message"),
    [
        ("tasks: []\nmatrix: {engines: [replay]}\n", "tasks: List should have at least 1 item"),
        (
            "tasks: [{id: a, spec: s.yaml, workspace: ., timeout: 3}]\nmatrix: {engines: [x]}\n",
            "tasks[0].timeout: unknown field",
        ),
        (
            "tasks: [{id: a, spec: s.yaml, workspace: .}]\nmatrix: {engines: [x]}\n"
            "limits: {timeout: soon}\n",
            "limits.timeout: 'soon' is not a duration",
        ),
        (
            "tasks: [{id: a, spec: s.yaml, workspace: .}]\nmatrix: {engines: [x]}\n"
            "limits: {per_engine: {y: 1}}\n",
            "limits.per_engine names ['y'], not in matrix.engines",
        ),
        (
            "tasks: [{id: a, spec: nope.yaml, workspace: .}]\nmatrix: {engines: [x]}\n",
            "task a: spec",
        ),
        ("[1, 2]\n", "a job file is a YAML mapping"),
    ],
)
def test_bad_job_file_names_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], job: str, message: str
) -> None:
    path = tmp_path / "job.yaml"
    path.write_text(job, encoding="utf-8")
    assert main(["batch", str(path)]) == 1
    err = capsys.readouterr().err
    assert message in err and err.startswith("holon batch: error: "), err
    assert "Traceback" not in err
