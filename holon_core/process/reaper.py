"""Linux process controls the supervisor relies on: child subreaper and parent-death signal.

As a child subreaper, the agent inherits the orphans of an engine's tree (a ``setsid``'d tool,
a double-forked daemon) instead of init, so it can find and reap them; with the parent-death
signal, an engine dies with a SIGKILLed agent. Elsewhere both are no-ops that say so.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

_PR_SET_CHILD_SUBREAPER = 36
#: Pids (this process, after forks) that successfully became a subreaper.
_subreaper_pids: set[int] = set()


def become_subreaper() -> bool:
    """Make this process a child subreaper (Linux); False where unsupported or refused.

    The attribute is per process and not inherited across fork, hence the pid check.
    """
    if os.getpid() in _subreaper_pids:
        return True
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        ok = bool(libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False
    if ok:
        _subreaper_pids.add(os.getpid())
    return ok


_PR_SET_PDEATHSIG = 1


def ignoring_stop_signals(
    then: Callable[[], None] | None,
) -> Callable[[], None] | None:
    """A ``preexec_fn`` that ignores SIGTERM, SIGINT and SIGHUP in the child, then runs
    ``then``. The disposition survives ``exec``: for a wrapper whose death would take its
    program's grace away (see ``LaunchPlan.wrapper``). Only libc's ``signal`` between fork
    and exec (resolved here), as :func:`die_with_parent` does."""
    try:
        libc_signal = ctypes.CDLL(None, use_errno=True).signal
    except (OSError, AttributeError):
        return then
    libc_signal.restype = ctypes.c_void_p
    libc_signal.argtypes = [ctypes.c_int, ctypes.c_void_p]
    ignore = ctypes.c_void_p(1)  # SIG_IGN
    numbers = [int(signal.SIGTERM), int(signal.SIGINT), int(signal.SIGHUP)]

    def preexec() -> None:
        for number in numbers:
            libc_signal(number, ignore)
        if then is not None:
            then()

    return preexec


def die_with_parent(sig: signal.Signals = signal.SIGKILL) -> Callable[[], None] | None:
    """A ``preexec_fn`` giving the child ``sig`` when this process dies (Linux; else None).

    The kernel sends it when the *thread* that forked exits, so call ``Popen`` from a thread
    that outlives the child (the main thread). If this process died before ``prctl`` ran
    (the child was already reparented), the child ends itself at once. Everything the child
    runs is resolved here: between fork and exec it must not import or take locks, which is
    what makes this ``preexec_fn`` safe with other threads running (it only calls ``prctl``,
    ``getppid`` and ``kill``).
    """
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    parent, signum, getppid, kill, me = os.getpid(), int(sig), os.getppid, os.kill, os.getpid

    def preexec() -> None:
        prctl(_PR_SET_PDEATHSIG, signum, 0, 0, 0)
        if getppid() != parent:  # too late: the parent is already gone
            kill(me(), signum)

    return preexec


def is_subreaper() -> bool:
    return os.getpid() in _subreaper_pids
