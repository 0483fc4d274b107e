"""One supervised engine process, from its start to its last byte: the supervising loop.

All methods run on the supervising thread (:func:`holon_core.process.supervisor.supervise`
makes one): the reader threads only spool the pipes; this loop takes the spool in pieces,
splits lines, runs the callbacks, samples CPU and memory, watches the timeouts, the cancel
event and the parser's abort request, and tears the tree down (close stdin, SIGTERM, grace,
SIGKILL, every descendant left).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from typing import TYPE_CHECKING, Literal

from holon_core.process.pipes import ChunkReader, LineSplitter, Spool, StdinWriter
from holon_core.process.proc_scan import Proc
from holon_core.process.tree import ProcessTree

if TYPE_CHECKING:
    import threading
    from collections.abc import Callable

    from holon_core.engine.adapter import LaunchPlan

#: How a supervised run ended.
EndedBy = Literal["exit", "timeout", "stalled", "cancelled", "aborted", "spawn_failed"]

#: After a timeout, cancel or abort, spooled output is still processed for this long at most.
STOPPED_DRAIN = 5.0

_STREAMS = {"out": "stdout", "err": "stderr"}
_TICK = 0.05
#: The tree's CPU and memory are sampled this often at first, then each pause is 1.5 times
#: the last, up to :data:`_SAMPLE_AT_MOST`: a sample scans every process on the machine (about
#: 10 ms where a few hundred run), and a long run needs no finer grain than a second.
_SAMPLE_EVERY = 0.2
_SAMPLE_AT_MOST = 1.0
#: How long to wait for pipe EOF after the tree is gone before giving up on stray writers.
_EOF_WAIT = 2.0
#: Bytes of spool taken at a time while the engine runs (see ``supervisor``).
TAKE_BYTES = 64 * 1024


class EngineRun:
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
        pause = _SAMPLE_EVERY
        next_sample = time.monotonic() + pause
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
                pause = min(pause * 1.5, _SAMPLE_AT_MOST)
                next_sample = now + pause
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
            taken = self.spool.take(TAKE_BYTES)
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
                give_up = time.monotonic() + STOPPED_DRAIN
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
