"""``holon runs list|clean`` on real run dirs: finished, running, and orphaned by SIGKILL."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from typing import TYPE_CHECKING, Any

import pytest

from holon_core.testing import make_task

if TYPE_CHECKING:
    from pathlib import Path


def _env(tmp_path: Path) -> dict[str, str]:
    return {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "HOLON_RUNS_DIR": str(tmp_path / "runs"),
        # the engines here signal the test through marker files beside the runs dir
        "HOLON_SANDBOX": "off",
    }


def _holon(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "holon_core.cli.main", *args],
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _start_run(tmp_path: Path, name: str, steps: list[Any]) -> subprocess.Popen[str]:
    task = make_task(tmp_path / name, replay=steps, git_repo=False)
    argv = [sys.executable, "-m", "holon_core.cli.main", "run", str(task.spec)]
    argv += ["--workspace", str(task.workspace), "--engine", "replay", "--json", "--quiet"]
    return subprocess.Popen(
        argv, env=_env(tmp_path), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True
    )


def _wait_for_new_run(tmp_path: Path, known: set[str], marker: Path) -> str:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if marker.exists():
            (new,) = {p.name for p in (tmp_path / "runs").iterdir()} - known
            return new
        time.sleep(0.05)
    pytest.fail("the run never started its engine")


def _listed(tmp_path: Path) -> dict[str, dict[str, Any]]:
    done = _holon(tmp_path, "runs", "list", "--json")
    assert done.returncode == 0, done.stderr
    return {run["id"]: run for run in json.loads(done.stdout)}


def test_runs_list_and_clean_tell_finished_running_and_orphaned_runs_apart(tmp_path):
    runs = tmp_path / "runs"
    # A finished run.
    finished = _start_run(tmp_path, "done", [{"say": "done"}])
    finished.communicate(timeout=300)
    assert finished.returncode == 0
    (done_id,) = [p.name for p in runs.iterdir()]
    # An orphaned run: its holon run is SIGKILLed mid-run; an engine left a read-only dir
    # and a link to a file outside the runs dir in it.
    outside = tmp_path / "precious.txt"
    outside.write_text("keep me\n")
    started = tmp_path / "orphan-started"
    steps = [
        {"run": "mkdir -p ro/inner && touch ro/inner/f && chmod 000 ro/inner && chmod 555 ro"},
        {"run": f"ln -s {outside} link.txt && touch {started} && sleep 300"},
    ]
    orphan_proc = _start_run(tmp_path, "orphan", steps)
    orphan_id = _wait_for_new_run(tmp_path, {done_id}, started)
    orphan_proc.kill()
    orphan_proc.communicate()
    # A running one.
    started_live = tmp_path / "live-started"
    live = _start_run(tmp_path, "live", [{"run": f"touch {started_live} && sleep 300"}])
    try:
        live_id = _wait_for_new_run(tmp_path, {done_id, orphan_id}, started_live)
        # Not a run: a link in the runs dir pointing elsewhere.
        (runs / "run-link").symlink_to(tmp_path / "done", target_is_directory=True)

        listed = _listed(tmp_path)
        assert set(listed) == {done_id, orphan_id, live_id}
        assert listed[done_id]["state"] == "finished"
        assert listed[live_id]["state"] == "running"
        assert listed[live_id]["pid"] == live.pid
        assert listed[orphan_id]["state"] == "orphaned"
        assert all(run["size_bytes"] > 0 for run in listed.values())

        table = _holon(tmp_path, "runs", "list")
        assert table.returncode == 0 and orphan_id in table.stdout and "orphaned" in table.stdout

        young = _holon(tmp_path, "runs", "clean", "--older-than", "1h")
        assert young.returncode == 0 and "nothing to remove" in young.stdout

        dry = _holon(tmp_path, "runs", "clean", "--dry-run")
        assert dry.returncode == 0, dry.stderr
        assert f"would remove {orphan_id}" in dry.stdout and f"would remove {done_id}" in dry.stdout
        assert live_id not in dry.stdout
        assert len(list(runs.iterdir())) == 4

        clean = _holon(tmp_path, "runs", "clean", "--json")
        assert clean.returncode == 0, clean.stderr
        assert {run["id"] for run in json.loads(clean.stdout)} == {done_id, orphan_id}
        assert sorted(p.name for p in runs.iterdir()) == sorted([live_id, "run-link"])
        assert outside.read_text() == "keep me\n"
        assert any((tmp_path / "done").rglob("*.yaml"))  # behind the link: untouched
    finally:
        live.send_signal(signal.SIGTERM)
        live.communicate(timeout=120)


def test_runs_clean_rejects_a_bad_duration(tmp_path):
    done = _holon(tmp_path, "runs", "clean", "--older-than", "soon")
    assert done.returncode == 1
    assert "--older-than" in done.stderr and done.stderr.count("write it like 90s, 10m") == 1
    assert "Traceback" not in done.stderr


def test_runs_list_with_no_runs_dir_is_empty(tmp_path):
    assert _listed(tmp_path) == {}


def test_runs_list_and_clean_do_not_hang_on_a_fifo_runner_file(tmp_path):
    # An engine can write its run dir: a FIFO named runner.json must not block the reader.
    run = tmp_path / "runs" / "run-20200101-000000-fifo"
    run.mkdir(parents=True)
    os.mkfifo(run / "runner.json")
    os.utime(run, (time.time() - 3600, time.time() - 3600))
    argv = [sys.executable, "-m", "holon_core.cli.main", "runs"]
    done = subprocess.run(
        [*argv, "list", "--json"],
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    (listed,) = json.loads(done.stdout)
    assert listed["id"] == run.name and listed["state"] == "orphaned"
    clean = subprocess.run(
        [*argv, "clean", "--json"],
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert clean.returncode == 0, clean.stderr
    assert [r["id"] for r in json.loads(clean.stdout)] == [run.name]
    assert not run.exists()
