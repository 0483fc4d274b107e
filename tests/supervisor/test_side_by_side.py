"""Two runs supervised at once in one process (serve mode's ``--max-concurrent``): neither
run's sweep takes the other's processes for orphans of its own engine.

The agent is a subreaper, and a child of ours that appears after a run started used to count
as an orphan of that run's engine: a run that ended while another was under way killed the
other's engine (its exit status lost: ``silent_success`` in serve) or another run's own git.
"""

from __future__ import annotations

import os
import subprocess
import threading
import time
from pathlib import Path

import psutil
import pytest

from holon_core.engine.adapter import LaunchPlan
from holon_core.process.supervisor import ProcessOutcome, supervise
from holon_core.process.tree import runs_side_by_side


@pytest.fixture(autouse=True)
def no_children_left():
    """Nothing the test started is left (zombies included). What the worker had before stays
    out of it: a worker that supervised earlier is a subreaper, and other tests' orphans may
    have become its zombies."""
    before = set(psutil.Process().children(recursive=True))
    yield
    left = set(psutil.Process().children(recursive=True)) - before
    assert not left, f"processes left behind: {left}"


def start_run(script: str, results: dict[str, ProcessOutcome], name: str) -> threading.Thread:
    plan = LaunchPlan(argv=["sh", "-c", script], env=dict(os.environ), cwd=Path.cwd())

    def work() -> None:
        results[name] = supervise(
            plan,
            on_stdout=lambda _line: None,
            on_stderr=lambda _line: None,
            wall_timeout=60,
            silence_timeout=None,
            cancel=threading.Event(),
        )

    thread = threading.Thread(target=work)
    thread.start()
    return thread


def started(path: Path) -> None:
    deadline = time.monotonic() + 30
    while not path.exists():
        assert time.monotonic() < deadline, f"{path.name} never appeared"
        time.sleep(0.02)


def test_a_run_that_ends_first_leaves_the_other_runs_engine_alone(tmp_path: Path) -> None:
    gate, second_up = tmp_path / "gate", tmp_path / "second-up"
    results: dict[str, ProcessOutcome] = {}
    # the first run ends when the second's engine is up; the second outlives it, then exits 7
    first = start_run(f"while [ ! -e {second_up} ]; do sleep 0.02; done", results, "first")
    time.sleep(0.2)
    second = start_run(
        f"touch {second_up}; while [ ! -e {gate} ]; do sleep 0.02; done; exit 7",
        results,
        "second",
    )
    first.join(30)
    gate.touch()
    second.join(30)
    assert results["first"].exit_code == 0
    assert results["first"].leftovers_killed == 0
    assert results["second"].ended_by == "exit"
    assert results["second"].exit_code == 7, results["second"]


def test_side_by_side_a_run_leaves_another_runs_own_children_alone(tmp_path: Path) -> None:
    """Another run's git (any child of ours no claim covers) is not an orphan of this engine."""
    up = tmp_path / "up"
    results: dict[str, ProcessOutcome] = {}
    with runs_side_by_side():
        run = start_run(f"while [ ! -e {up} ]; do sleep 0.02; done", results, "run")
        time.sleep(0.2)
        other = subprocess.Popen(["sleep", "30"])  # what another turn's thread started
        try:
            up.touch()
            run.join(30)
            assert results["run"].exit_code == 0
            assert results["run"].leftovers_killed == 0
            assert other.poll() is None, "the run killed a process it did not start"
        finally:
            other.kill()
            other.wait()
