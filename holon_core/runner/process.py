"""Start ``holon-agent`` as a separate process and wait for it, forwarding SIGINT/SIGTERM/SIGHUP.

The agent runs in its own session so a terminal's Ctrl-C reaches it only through us, as one
SIGTERM: the agent then cancels its engine, writes its manifest and exits, and we still
report. If it ignores that (or overruns ``--timeout``), it is killed after a grace period.
"""

from __future__ import annotations

import contextlib
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

from holon_core.errors import HolonError
from holon_core.process.tree import die_with_parent
from holon_core.runner.agent_env import agent_invocation

KILL_GRACE = 30.0
POLL = 0.1


@dataclass(frozen=True)
class AgentExit:
    exit_code: int  # the agent's own code; negative when a signal ended it
    interrupted: bool = False  # the user asked holon run to stop
    timed_out: bool = False  # --timeout expired
    killed: bool = False  # SIGKILL after the grace period
    spawn_error: str | None = None


def run_agent_process(
    argv: Sequence[str],
    env: Mapping[str, str],
    cwd: Path,
    logs: tuple[Path, Path],
    *,
    on_tick: Callable[[float], None],
    timeout: float | None = None,
    grace: float = KILL_GRACE,
    cancelled: Callable[[], bool] = lambda: False,
) -> AgentExit:
    """Run the agent to completion; ``on_tick(elapsed)`` is called every ~0.1 s.

    ``cancelled()`` says a stop signal arrived just before our handler was installed; the
    agent is then stopped at once. Whatever happens here (a failing ``on_tick``, an
    unexpected error), the agent has been stopped and reaped when this returns or raises,
    so the caller may delete its snapshot.
    """
    stdout_path, stderr_path = logs
    try:
        argv, env = agent_invocation(argv, env)  # flags, or the environment for v0.1 agents
    except HolonError as exc:
        return AgentExit(127, spawn_error=f"cannot start {argv[0]}: {exc}")
    waiter = _Waiter(timeout, grace)
    with (
        stdout_path.open("wb") as out,
        stderr_path.open("wb") as err,
        _forwarding(waiter.on_signal),
    ):
        try:
            proc = subprocess.Popen(
                list(argv),
                env=dict(env),
                cwd=cwd,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                start_new_session=True,
                # SIGKILL to holon run must not leave the agent running: the kernel sends it
                # SIGTERM, so it stops its engine and still writes its manifest.
                preexec_fn=die_with_parent(signal.SIGTERM),  # noqa: PLW1509 (see its doc)
            )
        except OSError as exc:
            return AgentExit(127, spawn_error=f"cannot start {argv[0]}: {exc.strerror or exc}")
        waiter.proc = proc
        if cancelled():
            waiter.on_signal(signal.SIGTERM, None)
        try:
            return waiter.wait(on_tick)
        except BaseException:
            waiter.stop()
            raise


class _Waiter:
    """Waits for the agent, enforcing the deadline and the SIGTERM-then-SIGKILL grace."""

    def __init__(self, timeout: float | None, grace: float) -> None:
        self.proc: subprocess.Popen[bytes] | None = None
        self.timeout, self.grace = timeout, grace
        self.stop_asked: float | None = None  # when SIGTERM was first sent
        #: A plain flag: the signal handler must take no lock (a signal arriving inside
        #: ``threading.Event.set`` would wait for good on the lock its own handler holds).
        self.interrupted = False
        self.timed_out = self.killed = False

    def on_signal(self, _signum: int, _frame: FrameType | None) -> None:
        if not self.interrupted:  # the agent gets one SIGTERM; the grace covers the rest
            self.interrupted = True
            self.terminate()

    def terminate(self) -> None:
        if self.stop_asked is None:
            self.stop_asked = time.monotonic()
        if self.proc is not None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.send_signal(signal.SIGTERM)

    def wait(self, on_tick: Callable[[float], None]) -> AgentExit:
        assert self.proc is not None
        started = time.monotonic()
        ticking = True
        while self.proc.poll() is None:
            now = time.monotonic()
            if ticking:
                ticking = _tick(on_tick, now - started)
            overdue = self.timeout is not None and now - started > self.timeout
            if overdue and self.stop_asked is None:
                self.timed_out = True
                self.terminate()
            self._kill_after_grace(now)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(POLL)
        if ticking:
            _tick(on_tick, time.monotonic() - started)
        return AgentExit(self.proc.returncode, self.interrupted, self.timed_out, self.killed)

    def stop(self) -> None:
        """SIGTERM, SIGKILL after the grace period, and reap: used when waiting failed."""
        assert self.proc is not None
        self.terminate()
        while self.proc.poll() is None:
            self._kill_after_grace(time.monotonic())
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(POLL)

    def _kill_after_grace(self, now: float) -> None:
        assert self.proc is not None
        if self.stop_asked is not None and now - self.stop_asked > self.grace and not self.killed:
            self.killed = True
            with contextlib.suppress(ProcessLookupError):
                self.proc.kill()


def _tick(on_tick: Callable[[float], None], elapsed: float) -> bool:
    """Progress is a courtesy: if showing it fails, stop showing it and keep waiting."""
    try:
        on_tick(elapsed)
    except Exception:
        return False
    return True


@contextlib.contextmanager
def _forwarding(handler: Callable[[int, FrameType | None], None]) -> Iterator[None]:
    """Install ``handler`` for SIGINT/SIGTERM/SIGHUP (main thread only), restoring the old ones."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    signals = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    previous = {sig: signal.signal(sig, handler) for sig in signals}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)
