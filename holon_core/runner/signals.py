"""SIGINT/SIGTERM/SIGHUP for the whole of ``holon run``, not only while the agent runs.

Before the agent starts (spec, input dir, a snapshot that can take minutes) a signal raises
``RunCancelled`` so the half-built run directory is cleaned up and the user gets a clean
"cancelled" report instead of a traceback or a bare 143 that leaves the snapshot behind.
While the agent runs, ``process.py`` installs its own forwarding handler. After it ended, a
signal is only recorded: validation is quick, and tearing it down halfway (or mid
``--apply``) would leave more mess than finishing the report.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class RunCancelled(BaseException):
    """A stop signal arrived before the agent started (a BaseException, like Ctrl-C)."""

    def __init__(self, signum: int) -> None:
        self.signum = signum
        super().__init__(f"cancelled by {signal.Signals(signum).name} before the agent started")


class StopSignals:
    """The handler ``holon run`` keeps installed; ``hold()`` switches it to record-only."""

    def __init__(self) -> None:
        self.received: int | None = None
        self._raising = True

    def hold(self) -> None:
        """From now on a signal is only recorded (the agent is about to start)."""
        self._raising = False

    @property
    def holding(self) -> bool:
        return not self._raising

    def handler(self, signum: int, _frame: FrameType | None) -> None:
        first = self.received is None
        if first:
            self.received = signum
        if first and self._raising:  # a second signal must not interrupt the cleanup
            raise RunCancelled(signum)

    @contextlib.contextmanager
    def installed(self) -> Iterator[StopSignals]:
        """Install ``handler`` (main thread only: Python's rule), restoring the old ones."""
        if threading.current_thread() is not threading.main_thread():
            yield self
            return
        previous = {sig: signal.signal(sig, self.handler) for sig in STOP_SIGNALS}
        try:
            yield self
        finally:
            for sig, old in previous.items():
                signal.signal(sig, old)
