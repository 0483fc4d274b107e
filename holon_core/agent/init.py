"""PID 1 duties, for ``holon-agent`` as a container's first process.

As PID 1 the agent inherits every orphan in the container, and the kernel delivers to it only
the signals it has a handler for. The agent's process-tree code collects statuses by pid only
(so ``subprocess`` keeps its children's statuses), which would leave other orphans as zombies.
So as PID 1 the agent forks first: the parent stays a minimal init that reaps every process
and forwards stop signals to the child; the child runs the agent as usual (a subreaper, so the
engine's orphans still come to it and are stopped with its tree). Nothing is imported here
beyond the standard library: this runs before everything else.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Callable
from types import FrameType

#: Signals the init forwards to the agent (its cancel signals).
FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


def run_as_init(main: Callable[[], int], *, pid: int | None = None) -> int:
    """``main()``, behind a forking init when this process is PID 1 (``pid`` for tests).

    Stop signals are blocked across the fork, so one arriving at any moment is held until the
    side that receives it has its handler: the init forwards it, the agent (whose ``main``
    unblocks them after installing its handlers) records a cancelled run.
    """
    if (os.getpid() if pid is None else pid) != 1:
        return main()
    signal.pthread_sigmask(signal.SIG_BLOCK, FORWARDED)
    child = os.fork()
    if child == 0:
        return main()
    return _init_loop(child)


def unblock_stop_signals() -> None:
    """Let held stop signals through (called once the agent's handlers are installed)."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, FORWARDED)


def _init_loop(child: int) -> int:
    """Reap every process until the agent exits; forward stop signals to it; its exit code."""

    def forward(signum: int, _frame: FrameType | None) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(child, signum)

    for sig in FORWARDED:
        signal.signal(sig, forward)
    unblock_stop_signals()
    while True:
        try:
            pid, status = os.waitpid(-1, 0)
        except ChildProcessError:  # cannot happen while the agent lives; be safe anyway
            return 1
        if pid == child:
            code = os.waitstatus_to_exitcode(status)
            # Leaving ends the container: the kernel kills whatever is left in it.
            return code if code >= 0 else 128 - code
