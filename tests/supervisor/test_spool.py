"""The engine's output is drained to a spool at disk speed: a slow parser does not hold the
engine up, and every byte still reaches the callbacks in order."""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import TYPE_CHECKING

import psutil
import pytest

from holon_core.engine.adapter import LaunchPlan
from holon_core.process.pipes import Spool
from holon_core.process.supervisor import supervise

if TYPE_CHECKING:
    from pathlib import Path

#: Far more than the old in-memory queue (16 MiB) plus the pipe (1 MiB) could hold.
FLOOD_MB = 40
_WRITER = """
import pathlib, sys
line = b"y" * 99 + b"\\n"
for _ in range({mb} * 10_000):
    sys.stdout.buffer.write(line)
sys.stdout.buffer.flush()
pathlib.Path(sys.argv[1]).write_text("written")
print("tail", file=sys.stderr)
"""


def test_a_stalled_parser_does_not_hold_the_engine_up(tmp_path: Path) -> None:
    """The parser waits until the engine says all its output was written: with output
    drained only as fast as the parser reads, the engine would block forever."""
    done = tmp_path / "done"
    seen: list[str] = []
    engine_finished = []

    def on_stdout(line: str) -> None:
        if not seen:  # the first line: hold the parser until the engine is done writing
            deadline = time.monotonic() + 60
            while not done.exists() and time.monotonic() < deadline:
                time.sleep(0.05)
            engine_finished.append(done.exists())
        seen.append(line)

    plan = LaunchPlan(
        argv=[sys.executable, "-c", _WRITER.format(mb=FLOOD_MB), str(done)],
        env=dict(os.environ),
        cwd=tmp_path,
    )
    errors: list[str] = []
    outcome = supervise(
        plan,
        on_stdout=on_stdout,
        on_stderr=errors.append,
        wall_timeout=300,
        silence_timeout=None,
        cancel=threading.Event(),
        spool_dir=str(tmp_path),
    )
    assert engine_finished == [True]
    assert outcome.ended_by == "exit" and outcome.exit_code == 0
    assert len(seen) == FLOOD_MB * 10_000
    assert set(seen) == {"y" * 99}
    assert errors == ["tail"]
    assert outcome.output_dropped == 0
    assert os.listdir(tmp_path) == ["done"]  # the spool has no name: nothing left behind


def test_spool_keeps_the_order_of_reads_across_streams(tmp_path: Path) -> None:
    spool = Spool(str(tmp_path))
    for kind, chunk in [("out", b"a"), ("out", b"b"), ("err", b"c"), ("out", b"d")]:
        spool.append(kind, chunk)
    spool.end("err")
    taken = []
    while (item := spool.take()) is not None:
        taken.append(item)
    assert taken == [("out", b"ab"), ("err", b"c"), ("out", b"d"), ("err", None)]
    assert spool.backlog == 0
    spool.close()


def test_spool_backlog_is_bounded_the_reader_waits_for_the_consumer(tmp_path: Path) -> None:
    spool = Spool(str(tmp_path), max_backlog=10)
    spool.append("out", b"0123456789")
    writer = threading.Thread(target=spool.append, args=("out", b"more"))
    writer.start()
    writer.join(timeout=0.5)
    assert writer.is_alive()  # waiting for room, not growing the spool
    assert spool.take() == ("out", b"0123456789")
    writer.join(timeout=30)
    assert not writer.is_alive()
    assert spool.take() == ("out", b"more")
    spool.close()


def test_after_a_timeout_the_backlog_is_processed_briefly_and_the_rest_counted(
    tmp_path: Path,
) -> None:
    """A parser far behind a stopped engine does not keep the run going: what it did not
    reach is counted (for the manifest's warning), not processed."""
    code = "import sys, time; sys.stdout.write(('z' * 99 + '\\n') * 100_000)"
    code += "; sys.stdout.flush(); time.sleep(60)"
    seen: list[str] = []

    def slow_parser(line: str) -> None:
        seen.append(line)
        time.sleep(0.001)

    plan = LaunchPlan(argv=[sys.executable, "-c", code], env=dict(os.environ), cwd=tmp_path)
    outcome = supervise(
        plan,
        on_stdout=slow_parser,
        on_stderr=lambda line: None,
        wall_timeout=1.0,
        silence_timeout=None,
        cancel=threading.Event(),
        spool_dir=str(tmp_path),
    )
    assert outcome.ended_by == "timeout"
    assert 0 < len(seen) < 100_000
    assert outcome.output_dropped > 0
    # the last line seen may be a piece of one (the stream's end flushes it)
    assert (len(seen) - 1) * 100 + outcome.output_dropped <= 100_000 * 100


def test_a_cancel_while_the_backlog_of_an_exited_engine_is_processed_ends_it_cancelled(
    tmp_path: Path,
) -> None:
    """The engine exited long before its parser caught up; a cancel then stops the
    processing soon (the run is cancelled) instead of reading the whole backlog."""
    code = "import sys; sys.stdout.write(('z' * 99 + '\\n') * 100_000)"
    cancel = threading.Event()
    pids: list[int] = []
    seen: list[str] = []

    def slow_parser(line: str) -> None:
        if not seen:  # hold until the engine has exited, then cancel
            engine = psutil.Process(pids[0])
            deadline = time.monotonic() + 60
            while engine.status() != psutil.STATUS_ZOMBIE and time.monotonic() < deadline:
                time.sleep(0.05)
            cancel.set()
        seen.append(line)
        time.sleep(0.001)

    plan = LaunchPlan(argv=[sys.executable, "-c", code], env=dict(os.environ), cwd=tmp_path)
    outcome = supervise(
        plan,
        on_stdout=slow_parser,
        on_stderr=lambda line: None,
        wall_timeout=300,
        silence_timeout=None,
        cancel=cancel,
        on_start=pids.append,
        spool_dir=str(tmp_path),
    )
    assert outcome.exit_code == 0
    assert outcome.ended_by == "cancelled"
    assert outcome.output_dropped > 0
    assert len(seen) < 100_000


def test_a_spool_that_cannot_be_made_fails_before_the_engine_starts(tmp_path: Path) -> None:
    plan = LaunchPlan(argv=["sleep", "30"], env=dict(os.environ), cwd=tmp_path)
    # Only a child that appears now counts: a worker that supervised earlier tests is a
    # subreaper, and may hold other tests' orphaned sleeps as its children.
    before = {p.pid for p in psutil.Process().children()}
    with pytest.raises(FileNotFoundError):
        supervise(
            plan,
            on_stdout=lambda line: None,
            on_stderr=lambda line: None,
            wall_timeout=60,
            silence_timeout=None,
            cancel=threading.Event(),
            spool_dir=str(tmp_path / "missing"),
        )
    started = [p for p in psutil.Process().children() if p.pid not in before]
    assert [p for p in started if p.name() == "sleep"] == []


def test_an_abort_the_parser_reaches_after_the_exit_still_ends_the_run_aborted(
    tmp_path: Path,
) -> None:
    """The parser runs behind the engine: a step cap (say) crossed in output it reads only
    after the engine exited is still an abort, not a normal exit."""
    code = "import sys; sys.stdout.write(('z' * 99 + '\\n') * 50_000 + 'ABORT\\n')"
    pids: list[int] = []
    seen: list[str] = []

    def parser(line: str) -> None:
        if not seen:  # hold until the engine has exited
            engine = psutil.Process(pids[0])
            deadline = time.monotonic() + 60
            while engine.status() != psutil.STATUS_ZOMBIE and time.monotonic() < deadline:
                time.sleep(0.05)
        seen.append(line)

    plan = LaunchPlan(argv=[sys.executable, "-c", code], env=dict(os.environ), cwd=tmp_path)
    outcome = supervise(
        plan,
        on_stdout=parser,
        on_stderr=lambda line: None,
        wall_timeout=300,
        silence_timeout=None,
        cancel=threading.Event(),
        should_abort=lambda: "max_steps" if seen and seen[-1] == "ABORT" else None,
        on_start=pids.append,
        spool_dir=str(tmp_path),
    )
    assert seen[-1] == "ABORT"
    assert outcome.exit_code == 0
    assert (outcome.ended_by, outcome.abort_reason) == ("aborted", "max_steps")
