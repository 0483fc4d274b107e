"""Run one engine process tree to its end and leave nothing behind.

The engine starts in its own session with no TTY, stdin fed or closed, and stdout/stderr as
pipes. Reader threads only drain the pipes into a spool file at disk speed (a chatty engine
is not held up by holon's parsing and redaction); the calling thread reads the spool behind
them, splits lines and runs every callback, so event parsers need no locking. What is still
spooled when the engine exits is processed before :func:`supervise` returns; after a
timeout, cancel or abort, for at most a few seconds (the rest is counted, not parsed).
The run ends by exit, wall-clock timeout, silence timeout, the cancel event or a parser's
abort request; a teardown ladder (close stdin, SIGTERM to the group, grace, SIGKILL)
follows, and afterwards every descendant left (setsid'd tools, daemons) is killed and
reaped (see :mod:`holon_core.process.tree`).
If the agent itself is SIGKILLed, the engine gets SIGKILL from the kernel (parent-death
signal) and a watchdog process kills the rest of its tree (:mod:`holon_core.process.watchdog`).

``exit_code`` follows :mod:`subprocess`: negative means killed by that signal.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from holon_core.process.pipes import ChunkReader, LineSplitter, Spool, StdinWriter
from holon_core.process.tree import (
    TREE_MARKER_ENV,
    Proc,
    ProcessTree,
    become_subreaper,
    children_of,
    claiming,
    die_with_parent,
    release_claims,
)
from holon_core.process.watchdog import Watchdog

if TYPE_CHECKING:
    import threading
    from collections.abc import Callable, Iterator

    from holon_core.engine.adapter import LaunchPlan

EndedBy = Literal["exit", "timeout", "stalled", "cancelled", "aborted", "spawn_failed"]

_STREAMS = {"out": "stdout", "err": "stderr"}
_TICK = 0.05
_SAMPLE_EVERY = 0.2
#: How long to wait for pipe EOF after the tree is gone before giving up on stray writers.
_EOF_WAIT = 2.0
#: After a timeout, cancel or abort, spooled output is still processed for this long at most.
_STOPPED_DRAIN = 5.0
#: The reader threads need the GIL once per pipeful they move. While the engine runs, the
#: consumer yields it within this long (default 5 ms), and takes the spool in pieces of
#: :data:`_TAKE_BYTES`, so no single regex or decode call holds it for long: together they
#: halve how long a 100 MB flood holds the engine up (bench/output_throughput.py).
_SWITCH_INTERVAL = 0.0005
_TAKE_BYTES = 64 * 1024


class _Kept:
    """The watchdog the runs of this process share inside :func:`shared_watchdog`."""

    wanted = False
    watchdog: Watchdog | None = None
    #: A run has it armed: a run beside it (serve's side-by-side turns) gets its own, since
    #: a watchdog guards one tree at a time.
    armed = False


@contextlib.contextmanager
def shared_watchdog() -> Iterator[None]:
    """Inside, the runs of this process (serve mode's turns) share one watchdog; stopped after.

    A watchdog per run costs a fork and a reap: ~20 ms of a serve turn on a loaded machine.
    """
    _Kept.wanted = True
    try:
        yield
    finally:
        _Kept.wanted = _Kept.armed = False
        if _Kept.watchdog is not None:
            _Kept.watchdog.stop()
            _Kept.watchdog = None


def _watchdog() -> Watchdog:
    """The run's watchdog, claimed (no other run's tree may take it for an orphan)."""
    with claiming() as claimed:
        if not _Kept.wanted or _Kept.armed:
            watchdog = Watchdog()
        else:
            if _Kept.watchdog is None or not _Kept.watchdog.alive():
                if _Kept.watchdog is not None:
                    _Kept.watchdog.stop()
                _Kept.watchdog = Watchdog()
            watchdog, _Kept.armed = _Kept.watchdog, True
        if watchdog.pid is not None:
            claimed.helpers.add(watchdog.pid)
    return watchdog


def _release(watchdog: Watchdog) -> None:
    """The run's tree is gone: a shared watchdog is disarmed, a run's own one stopped."""
    if watchdog is _Kept.watchdog:
        watchdog.disarm()
        with claiming():
            _Kept.armed = False
    else:
        release_claims(watchdog.pid)
        watchdog.stop()


@dataclass(frozen=True, slots=True)
class ProcessOutcome:
    exit_code: int | None
    ended_by: EndedBy
    abort_reason: str | None
    duration: float
    peak_rss_bytes: int
    cpu_seconds: float
    leftovers_killed: int
    spawn_error: str | None
    pid: int | None
    #: Engine output read after a timeout/cancel/abort that was left unprocessed (bytes).
    output_dropped: int = 0


def supervise(
    plan: LaunchPlan,
    *,
    on_stdout: Callable[[str], None],
    on_stderr: Callable[[str], None],
    wall_timeout: float | None,
    silence_timeout: float | None,
    cancel: threading.Event,
    should_abort: Callable[[], str | None] = lambda: None,
    on_start: Callable[[int], None] | None = None,
    on_output: Callable[[str, bytes], None] | None = None,
    spool_dir: str | None = None,
) -> ProcessOutcome:
    """Start ``plan``, feed its output lines to the callbacks and return how it ended.

    ``on_output(stream, chunk)`` (``stream`` is ``"stdout"`` or ``"stderr"``) receives the raw
    bytes as read, after the lines they complete were delivered: the place to store output
    without per-line work. ``spool_dir`` holds the unnamed spool files (default: the system
    temp dir); it should be holon's, outside the output dir.

    Never raises for a process that cannot start (``ended_by="spawn_failed"``); an exception
    from a callback tears the whole tree down and then propagates.
    """
    started = time.monotonic()
    become_subreaper()
    marker = secrets.token_hex(8)
    watchdog = _watchdog()  # before `foreign` is taken: it is ours, not the engine's
    foreign = children_of(os.getpid())  # ours already; anything adopted later is the engine's
    try:  # before the engine starts: a spool that cannot be made fails the run, not the engine
        spool = Spool(spool_dir)
    except OSError:
        _release(watchdog)
        raise
    try:
        if not plan.argv:
            raise ValueError("empty argv")
        with claiming() as claimed:  # the engine is this run's, never another run's orphan
            proc = subprocess.Popen(
                plan.argv,
                env={**plan.env, TREE_MARKER_ENV: marker},
                cwd=plan.cwd,
                stdin=subprocess.DEVNULL if plan.stdin is None else subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
                close_fds=True,
                bufsize=0,
                # The engine dies if the agent is SIGKILLed (thread-safe: see die_with_parent).
                preexec_fn=die_with_parent(),  # noqa: PLW1509
            )
            claimed.engines.add(proc.pid)
    except (OSError, ValueError, subprocess.SubprocessError) as exc:
        _release(watchdog)
        spool.close()
        return ProcessOutcome(
            exit_code=None,
            ended_by="spawn_failed",
            abort_reason=None,
            duration=time.monotonic() - started,
            peak_rss_bytes=0,
            cpu_seconds=0.0,
            leftovers_killed=0,
            spawn_error=f"{type(exc).__name__}: {exc}",
            pid=None,
        )
    watchdog.arm(proc.pid, marker)
    run = _Run(
        proc,
        plan,
        marker,
        {"out": on_stdout, "err": on_stderr},
        should_abort,
        foreign=foreign,
        on_output=on_output,
        spool=spool,
    )
    switch_interval = sys.getswitchinterval()
    sys.setswitchinterval(min(switch_interval, _SWITCH_INTERVAL))
    try:
        if on_start is not None:
            on_start(proc.pid)
        ended_by, reason = run.until_end(wall_timeout, silence_timeout, cancel, started)
        sys.setswitchinterval(switch_interval)  # the engine is gone: no reader to wait for
        run.finish(drain_limit=None if ended_by == "exit" else _STOPPED_DRAIN, cancel=cancel)
        if ended_by == "exit" and run.cancelled_in_drain:
            ended_by = "cancelled"  # the engine had exited, holon had not read all it printed
        if ended_by == "exit" and (late := should_abort()) is not None:
            # The parser, behind the engine, reached an abort condition after the exit.
            ended_by = "aborted"  # how it ended; the reason is the parser's
            reason = late
    except BaseException:
        run.emergency_stop()
        raise
    finally:
        sys.setswitchinterval(switch_interval)
        release_claims(proc.pid)
        _release(watchdog)
        run.spool.close()
    return ProcessOutcome(
        exit_code=run.exit_code,
        ended_by=ended_by,
        abort_reason=reason,
        duration=time.monotonic() - started,
        peak_rss_bytes=run.peak_rss,
        cpu_seconds=run.cpu_seconds,
        leftovers_killed=run.leftovers_killed,
        spawn_error=None,
        pid=proc.pid,
        output_dropped=run.dropped,
    )


class _Run:
    """State of one supervised process; all methods run on the supervising thread."""

    def __init__(
        self,
        proc: subprocess.Popen[bytes],
        plan: LaunchPlan,
        marker: str,
        callbacks: dict[str, Callable[[str], None]],
        should_abort: Callable[[], str | None],
        *,
        foreign: list[Proc],
        on_output: Callable[[str, bytes], None] | None = None,
        spool: Spool,
    ) -> None:
        assert proc.stdout is not None and proc.stderr is not None
        self.proc = proc
        self.plan = plan
        self.tree = ProcessTree(proc.pid, marker, foreign)
        self.callbacks = callbacks
        self.should_abort = should_abort
        self.on_output = on_output
        self.spool = spool
        self.readers = [
            ChunkReader(proc.stdout, "out", self.spool),
            ChunkReader(proc.stderr, "err", self.spool),
        ]
        self.splitters = {"out": LineSplitter(), "err": LineSplitter()}
        self.writer = None if proc.stdin is None else StdinWriter(proc.stdin, plan.stdin or b"")
        self.open_streams = 2
        self.dropped = 0
        self.cancelled_in_drain = False
        self.exit_code: int | None = None
        self.exited = False
        self.root_cpu = 0.0
        self.root_rss = 0
        self.leftovers_killed = 0
        self.reaped_cpu = 0.0
        self.threads: list[ChunkReader | StdinWriter] = [*self.readers]
        if self.writer is not None:
            self.threads.append(self.writer)
        for thread in self.threads:
            thread.start()

    # -- the main loop -----------------------------------------------------------------------
    def until_end(
        self,
        wall_timeout: float | None,
        silence_timeout: float | None,
        cancel: threading.Event,
        started: float,
    ) -> tuple[EndedBy, str | None]:
        next_sample = time.monotonic() + _SAMPLE_EVERY
        while True:
            reason = self.pump(time.monotonic() + _TICK, watch_abort=True)
            if reason is not None:
                self.teardown()
                return "aborted", reason
            if self.poll() or (not self.open_streams and self._await_exit(_TICK)):
                return "exit", None
            now = time.monotonic()
            if now >= next_sample:
                self.tree.sample()
                next_sample = now + _SAMPLE_EVERY
            ended: EndedBy | None = None
            if cancel.is_set():
                ended = "cancelled"
            elif wall_timeout is not None and now - started >= wall_timeout:
                ended = "timeout"
            elif silence_timeout is not None and now - self.spool.last_input >= silence_timeout:
                ended = "stalled"
            if ended is not None:
                self.teardown()
                return ended, None

    def pump(self, until: float, *, watch_abort: bool = False) -> str | None:
        """Deliver spooled output until ``until`` (or the abort callback asks to stop)."""
        while True:
            if watch_abort and (reason := self.should_abort()) is not None:
                return reason
            if self.spool.error is not None:
                raise self.spool.error
            remaining = until - time.monotonic()
            if remaining <= 0:  # a flood of lines must not starve the timeout/cancel checks
                return None
            self.spool.ready.clear()
            taken = self.spool.take(_TAKE_BYTES)
            if taken is None:
                self.spool.ready.wait(remaining)
                continue
            kind, chunk = taken
            callback = self.callbacks[kind]
            if chunk is None:
                for line in self.splitters[kind].flush():
                    callback(line)
                self.open_streams -= 1
                if not self.open_streams:  # both pipes closed: the engine is exiting now
                    return None
                continue
            for line in self.splitters[kind].feed(chunk):
                callback(line)
            if self.on_output is not None:
                self.on_output(_STREAMS[kind], chunk)

    def poll(self, *, block: bool = False) -> bool:
        """Reap the engine if it has exited; True once its status is known."""
        if self.exited:
            return True
        try:
            pid, status, usage = os.wait4(self.proc.pid, 0 if block else os.WNOHANG)
        except ChildProcessError:  # someone else collected it: status unknown
            pid, status, usage = self.proc.pid, None, None
        if not pid:
            return False
        self.exited = True
        if status is not None and usage is not None:
            self.exit_code = os.waitstatus_to_exitcode(status)
            self.root_cpu = usage.ru_utime + usage.ru_stime
            self.root_rss = usage.ru_maxrss * 1024  # kilobytes on Linux
        # Tell Popen the child is gone so it never waits on a possibly reused pid.
        self.proc.returncode = self.exit_code if self.exit_code is not None else -1
        return True

    def _await_exit(self, limit: float) -> bool:
        """After EOF the exit follows within milliseconds; notice it without a full tick."""
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            if self.poll():
                return True
            time.sleep(0.002)
        return False

    # -- stopping ----------------------------------------------------------------------------
    def teardown(self) -> None:
        """Close stdin, SIGTERM the group, deliver output during the grace, then SIGKILL."""
        if self.writer is not None:
            self.writer.stop()
        self._signal_group(signal.SIGTERM)
        deadline = time.monotonic() + self.plan.grace_seconds
        while not self.poll() and time.monotonic() < deadline:
            self.pump(min(deadline, time.monotonic() + _TICK))
        if not self.exited:
            self.tree.sample()
            self._signal_group(signal.SIGKILL)
            self.poll(block=True)

    def _signal_group(self, sig: signal.Signals) -> None:
        if self.exited:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, sig)

    def finish(
        self, drain_limit: float | None = None, cancel: threading.Event | None = None
    ) -> None:
        """Kill and reap what the engine left, then deliver the spooled output.

        All of it after an exit (unless ``cancel`` is set meanwhile); after a stop, for
        ``drain_limit`` seconds at most (the rest is counted in :attr:`dropped`).
        """
        report = self.tree.kill_all(exclude=[self.proc.pid])
        self.leftovers_killed = report.killed
        self.reaped_cpu = report.reaped_cpu_seconds
        if self.writer is not None:
            self.writer.stop()
        give_up = None if drain_limit is None else time.monotonic() + drain_limit
        deadline = time.monotonic() + _EOF_WAIT
        while not all(r.eof for r in self.readers) and time.monotonic() < deadline:
            self.pump(min(deadline, time.monotonic() + _TICK))
        for reader in self.readers:
            reader.stop()
        while self.open_streams:
            if give_up is None and cancel is not None and cancel.is_set():
                self.cancelled_in_drain = True
                give_up = time.monotonic() + _STOPPED_DRAIN
            if give_up is not None and time.monotonic() >= give_up:
                self.dropped += self.spool.drop_backlog()
            self.pump(time.monotonic() + _TICK)
        for thread in self.threads:
            thread.join()
        self._close_pipes()

    def emergency_stop(self) -> None:
        """A callback raised (or we were interrupted): leave no process and no thread behind."""
        self._signal_group(signal.SIGKILL)
        self.poll(block=True)
        self.tree.kill_all(exclude=[self.proc.pid], timeout=5.0)
        self.spool.abandon()  # nobody consumes the spool any more
        for reader in self.readers:
            reader.stop()
        for thread in self.threads:
            thread.stop()
            thread.join(timeout=2.0)
        self._close_pipes()

    def _close_pipes(self) -> None:
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()

    # -- figures -----------------------------------------------------------------------------
    @property
    def peak_rss(self) -> int:
        return max(self.tree.peak_rss_bytes, self.root_rss)

    @property
    def cpu_seconds(self) -> float:
        return max(self.tree.sampled_cpu_seconds, self.root_cpu + self.reaped_cpu)
