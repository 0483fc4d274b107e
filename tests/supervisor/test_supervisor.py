"""The supervisor against real processes: output, timeouts, teardown and orphan reaping."""

from __future__ import annotations

import hashlib
import os
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import psutil
import pytest

from holon_core.engine.adapter import LaunchPlan
from holon_core.process.supervisor import ProcessOutcome, supervise

if TYPE_CHECKING:
    from pathlib import Path

PY = sys.executable


@pytest.fixture(autouse=True)
def no_children_left():
    """Every test must end with this process having no children at all (zombies included)."""
    yield
    left = psutil.Process().children(recursive=True)
    assert left == [], f"processes left behind: {left}"


@dataclass
class Run:
    out: list[str] = field(default_factory=list)
    err: list[str] = field(default_factory=list)
    pids: list[psutil.Process] = field(default_factory=list)
    threads: set[int] = field(default_factory=set)
    cancel: threading.Event = field(default_factory=threading.Event)
    outcome: ProcessOutcome | None = None

    def on_stdout(self, line: str) -> None:
        self.threads.add(threading.get_ident())
        self.out.append(line)
        if line.startswith("PID "):  # a descendant announcing itself, to check it is reaped
            self.pids.append(psutil.Process(int(line.split()[1])))
        if line == "CANCEL":
            self.cancel.set()

    def on_stderr(self, line: str) -> None:
        self.threads.add(threading.get_ident())
        self.err.append(line)


def run(
    argv: list[str],
    tmp_path: Path,
    *,
    stdin: bytes | None = None,
    wall: float | None = 60.0,
    silence: float | None = None,
    grace: float = 0.5,
    should_abort=None,
    on_start=None,
) -> tuple[ProcessOutcome, Run]:
    state = Run()
    plan = LaunchPlan(
        argv=argv, env=dict(os.environ), cwd=tmp_path, stdin=stdin, grace_seconds=grace
    )
    outcome = supervise(
        plan,
        on_stdout=state.on_stdout,
        on_stderr=state.on_stderr,
        wall_timeout=wall,
        silence_timeout=silence,
        cancel=state.cancel,
        should_abort=should_abort or (lambda: None),
        on_start=on_start,
    )
    return outcome, state


def py(code: str) -> list[str]:
    return [PY, "-c", code]


def assert_all_gone(procs: list[psutil.Process]) -> None:
    # is_running() is True for zombies, so this also proves every one was reaped.
    assert procs, "the test expected descendants to announce their pids"
    assert [p for p in procs if p.is_running()] == []


def test_normal_exit_keeps_order_and_runs_callbacks_on_caller_thread(tmp_path):
    code = (
        "import sys\n"
        "for i in range(2000):\n"
        "    print(f'line {i}', flush=i % 7 == 0)\n"
        "    if i % 500 == 0: print(f'warn {i}', file=sys.stderr, flush=True)\n"
        "sys.stdout.write('no newline at the end')\n"
    )
    outcome, state = run(py(code), tmp_path)
    assert outcome.ended_by == "exit"
    assert outcome.exit_code == 0
    assert outcome.spawn_error is None
    assert outcome.pid is not None
    assert state.out == [f"line {i}" for i in range(2000)] + ["no newline at the end"]
    assert state.err == [f"warn {i}" for i in range(0, 2000, 500)]
    assert state.threads == {threading.get_ident()}
    assert outcome.leftovers_killed == 0


def test_exit_code_is_propagated(tmp_path):
    outcome, _ = run(py("import sys; sys.exit(7)"), tmp_path)
    assert (outcome.ended_by, outcome.exit_code) == ("exit", 7)


def test_on_start_gets_the_pid(tmp_path):
    seen: list[int] = []
    outcome, state = run(py("import os; print(os.getpid())"), tmp_path, on_start=seen.append)
    assert seen == [outcome.pid]
    assert state.out == [str(outcome.pid)]


def test_runs_in_its_own_session_without_a_tty(tmp_path):
    code = (
        "import os, sys\n"
        "print(os.getsid(0) == os.getpid(), sys.stdin.isatty(), sys.stdout.isatty())\n"
        "try:\n    open('/dev/tty')\nexcept OSError:\n    print('no tty')\n"
    )
    _, state = run(py(code), tmp_path)
    assert state.out == ["True False False", "no tty"]


def test_wall_timeout(tmp_path):
    outcome, state = run(
        py("print('started', flush=True); import time; time.sleep(60)"), tmp_path, wall=0.5
    )
    assert outcome.ended_by == "timeout"
    assert outcome.exit_code == -signal.SIGTERM
    assert state.out == ["started"]


def test_silence_timeout_while_the_process_sleeps(tmp_path):
    code = "import time; print('hello', flush=True); time.sleep(60)"
    outcome, state = run(py(code), tmp_path, silence=0.5)
    assert outcome.ended_by == "stalled"
    assert state.out == ["hello"]


def test_cancel_event_mid_run(tmp_path):
    code = "import time; print('working', flush=True); print('CANCEL', flush=True); time.sleep(60)"
    outcome, state = run(py(code), tmp_path)
    assert outcome.ended_by == "cancelled"
    assert outcome.abort_reason is None
    assert state.out == ["working", "CANCEL"]


def test_abort_callback_stops_the_run_with_its_reason(tmp_path):
    code = "import time\nfor i in range(3): print('retrying after 401', flush=True)\ntime.sleep(60)"
    state_lines: list[str] = []

    def should_abort() -> str | None:
        return "auth_failed" if len(state_lines) >= 2 else None

    def on_start(pid: int) -> None:
        state_lines.clear()

    # The abort callback reads what the stdout callback collected, as a parser would.
    plan = LaunchPlan(argv=py(code), env=dict(os.environ), cwd=tmp_path, grace_seconds=0.5)
    outcome = supervise(
        plan,
        on_stdout=state_lines.append,
        on_stderr=lambda line: None,
        wall_timeout=60,
        silence_timeout=None,
        cancel=threading.Event(),
        should_abort=should_abort,
        on_start=on_start,
    )
    assert outcome.ended_by == "aborted"
    assert outcome.abort_reason == "auth_failed"
    assert state_lines[:2] == ["retrying after 401"] * 2


def test_stdin_bytes_are_delivered_then_eof(tmp_path):
    payload = os.urandom(3 * 1024 * 1024)  # far more than a pipe buffer
    code = (
        "import hashlib, sys\n"
        "data = sys.stdin.buffer.read()\n"
        "print(len(data), hashlib.sha256(data).hexdigest())\n"
    )
    outcome, state = run(py(code), tmp_path, stdin=payload)
    assert outcome.ended_by == "exit"
    assert state.out == [f"{len(payload)} {hashlib.sha256(payload).hexdigest()}"]


def test_stdin_is_closed_when_none(tmp_path):
    outcome, state = run(["cat"], tmp_path, wall=30)
    assert (outcome.ended_by, outcome.exit_code, state.out) == ("exit", 0, [])


def test_sigterm_ignored_gets_sigkill_after_grace(tmp_path):
    code = (
        "import signal, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "print('CANCEL', flush=True)\n"
        "time.sleep(60)\n"
    )
    outcome, _ = run(py(code), tmp_path, grace=0.3)
    assert outcome.ended_by == "cancelled"
    assert outcome.exit_code == -signal.SIGKILL


def test_output_during_grace_is_delivered(tmp_path):
    code = (
        "import signal, sys, time\n"
        "def bye(*_):\n    print('final words', flush=True); sys.exit(3)\n"
        "signal.signal(signal.SIGTERM, bye)\n"
        "print('CANCEL', flush=True)\n"
        "time.sleep(60)\n"
    )
    outcome, state = run(py(code), tmp_path, grace=10)
    assert (outcome.ended_by, outcome.exit_code) == ("cancelled", 3)
    assert state.out == ["CANCEL", "final words"]


SETSID_GRANDCHILD = "setsid sh -c 'echo PID $$; exec sleep 300' &"


def test_setsid_grandchild_is_reaped_after_the_engine_exits(tmp_path):
    # The grandchild leaves the process group and keeps the stdout pipe open.
    script = f"{SETSID_GRANDCHILD}\nsleep 0.3\necho done"
    outcome, state = run(["sh", "-c", script], tmp_path)
    assert (outcome.ended_by, outcome.exit_code) == ("exit", 0)
    assert state.out[-1] == "done"
    assert outcome.leftovers_killed == 1
    assert_all_gone(state.pids)


def test_setsid_grandchild_is_reaped_on_cancel(tmp_path):
    script = f"{SETSID_GRANDCHILD}\nsleep 0.3\necho CANCEL\nsleep 300"
    outcome, state = run(["sh", "-c", script], tmp_path)
    assert outcome.ended_by == "cancelled"
    assert_all_gone(state.pids)


DAEMON = """
import os, sys, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        print('PID', os.getpid(), flush=True)
        fd = os.open(os.devnull, os.O_RDWR)
        for std in (0, 1, 2):
            os.dup2(fd, std)
        time.sleep(300)
    os._exit(0)
os.wait()
time.sleep(0.3)
print('CANCEL' if sys.argv[1] == 'cancel' else 'done', flush=True)
if sys.argv[1] == 'cancel':
    time.sleep(300)
"""


@pytest.mark.parametrize("mode", ["exit", "cancel"])
def test_double_forked_daemon_is_reaped(tmp_path, mode):
    outcome, state = run([PY, "-c", DAEMON, mode], tmp_path)
    assert outcome.ended_by == ("exit" if mode == "exit" else "cancelled")
    assert outcome.leftovers_killed == 1
    assert_all_gone(state.pids)


def test_killed_engine_with_grandchild_holding_stdout_does_not_hang(tmp_path):
    script = "sleep 300 &\necho PID $!\necho ready\nexec sleep 300"

    def kill_when_ready(line: str) -> None:
        state.on_stdout(line)
        if line == "ready":
            assert outcome_pid
            os.kill(outcome_pid[0], signal.SIGKILL)

    state = Run()
    outcome_pid: list[int] = []
    plan = LaunchPlan(argv=["sh", "-c", script], env=dict(os.environ), cwd=tmp_path)
    outcome = supervise(
        plan,
        on_stdout=kill_when_ready,
        on_stderr=state.on_stderr,
        wall_timeout=60,
        silence_timeout=None,
        cancel=state.cancel,
        on_start=outcome_pid.append,
    )
    assert (outcome.ended_by, outcome.exit_code) == ("exit", -signal.SIGKILL)
    assert outcome.leftovers_killed == 1
    assert_all_gone(state.pids)


def test_stray_writer_outside_the_tree_does_not_hang_the_readers(tmp_path):
    # `env -i` drops the tree marker and setsid leaves the session; whether or not a sample
    # caught it, supervise must return (the readers give up on EOF after the tree is gone).
    script = "(env -i setsid sh -c 'echo PID $$; exec sleep 30' &)\nsleep 0.2\necho done"
    outcome, state = run(["sh", "-c", script], tmp_path)
    try:
        assert outcome.ended_by == "exit"
        assert state.out[-1] == "done"
    finally:
        for proc in state.pids:
            if proc.is_running():
                proc.kill()
                os.waitpid(proc.pid, 0)


@pytest.mark.parametrize(
    ("argv", "cwd_missing"),
    [(["/nonexistent/holon-engine"], False), (["true"], True), (["{tmp}/not-executable"], False)],
)
def test_spawn_failures_are_reported_not_raised(tmp_path, argv, cwd_missing):
    target = tmp_path / "not-executable"
    target.write_text("#!/bin/sh\n")
    argv = [a.format(tmp=tmp_path) for a in argv]
    cwd = tmp_path / "missing" if cwd_missing else tmp_path
    plan = LaunchPlan(argv=argv, env=dict(os.environ), cwd=cwd)
    outcome = supervise(
        plan,
        on_stdout=lambda line: None,
        on_stderr=lambda line: None,
        wall_timeout=10,
        silence_timeout=None,
        cancel=threading.Event(),
    )
    assert outcome.ended_by == "spawn_failed"
    assert outcome.spawn_error
    assert (outcome.pid, outcome.exit_code) == (None, None)


def test_peak_rss_and_cpu_of_a_process_that_allocates(tmp_path):
    code = (
        "import time\n"
        "block = b'x' * (50 * 1024 * 1024)\n"
        "end = time.monotonic() + 0.6\n"
        "while time.monotonic() < end: pass\n"
        "print(len(block))\n"
    )
    outcome, state = run(py(code), tmp_path)
    assert state.out == [str(50 * 1024 * 1024)]
    assert outcome.peak_rss_bytes > 50 * 1024 * 1024
    assert outcome.cpu_seconds > 0


def test_very_long_lines_and_invalid_utf8(tmp_path):
    code = (
        "import sys\n"
        "out = sys.stdout.buffer\n"
        "out.write(b'a' * (3 * 1024 * 1024) + b'\\n')\n"
        "out.write(b'caf\\xc3\\xa9 \\xff\\n')\n"
        "out.write(b'short\\n')\n"
    )
    _, state = run(py(code), tmp_path)
    assert [len(line) for line in state.out] == [3 * 1024 * 1024, 6, 5]
    assert state.out[1] == "café \ufffd"


def test_callback_exception_tears_the_tree_down_and_propagates(tmp_path):
    script = f"{SETSID_GRANDCHILD}\nsleep 0.3\necho boom\nsleep 300"
    state = Run()

    def explode(line: str) -> None:
        state.on_stdout(line)
        if line == "boom":
            raise RuntimeError("parser bug")

    plan = LaunchPlan(argv=["sh", "-c", script], env=dict(os.environ), cwd=tmp_path)
    with pytest.raises(RuntimeError, match="parser bug"):
        supervise(
            plan,
            on_stdout=explode,
            on_stderr=state.on_stderr,
            wall_timeout=60,
            silence_timeout=None,
            cancel=state.cancel,
        )
    assert_all_gone(state.pids)


@pytest.mark.parametrize("stop", ["timeout", "cancel"])
def test_a_flooding_engine_is_slowed_not_buffered_and_still_stopped(tmp_path, stop):
    """`yes` writes far faster than a parser reads: the queue must stay bounded (the engine
    blocks on its pipe) and timeouts/cancel must still be honoured while lines keep coming."""
    me = psutil.Process()
    before = me.memory_info().rss
    seen = [0]
    cancel = threading.Event()

    def slow_parser(line: str) -> None:
        seen[0] += 1
        if seen[0] % 1000 == 0:
            time.sleep(0.01)
        if stop == "cancel" and seen[0] == 20_000:
            cancel.set()

    plan = LaunchPlan(argv=["yes", "x" * 200], env=dict(os.environ), cwd=tmp_path)
    outcome = supervise(
        plan,
        on_stdout=slow_parser,
        on_stderr=lambda line: None,
        wall_timeout=1.0 if stop == "timeout" else 60.0,
        silence_timeout=None,
        cancel=cancel,
    )
    assert outcome.ended_by == ("timeout" if stop == "timeout" else "cancelled")
    assert outcome.duration < 10
    assert me.memory_info().rss - before < 200 * 2**20
