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
) -> AgentExit:
    """Run the agent to completion; ``on_tick(elapsed)`` is called every ~0.1 s."""
    stdout_path, stderr_path = logs
    with stdout_path.open("wb") as out, stderr_path.open("wb") as err:
        try:
            proc = subprocess.Popen(
                list(argv),
                env=dict(env),
                cwd=cwd,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                start_new_session=True,
            )
        except OSError as exc:
            return AgentExit(127, spawn_error=f"cannot start {argv[0]}: {exc.strerror or exc}")
        return _wait(proc, on_tick, timeout, grace)


def _wait(
    proc: subprocess.Popen[bytes],
    on_tick: Callable[[float], None],
    timeout: float | None,
    grace: float,
) -> AgentExit:
    started = time.monotonic()
    stop_asked: list[float] = []  # when SIGTERM was first sent
    interrupted = threading.Event()

    def terminate() -> None:
        if not stop_asked:
            stop_asked.append(time.monotonic())
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(signal.SIGTERM)

    def on_signal(_signum: int, _frame: FrameType | None) -> None:
        interrupted.set()
        terminate()

    timed_out = killed = False
    with _forwarding(on_signal):
        while proc.poll() is None:
            now = time.monotonic()
            on_tick(now - started)
            if timeout is not None and not stop_asked and now - started > timeout:
                timed_out = True
                terminate()
            if stop_asked and now - stop_asked[0] > grace and not killed:
                killed = True
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(POLL)
    on_tick(time.monotonic() - started)
    return AgentExit(proc.returncode, interrupted.is_set(), timed_out, killed)


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
