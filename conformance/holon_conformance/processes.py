"""Process-leak checks: a test must not leave any process alive, orphans included.

Codex and Gemini start tool processes in their own session (engines.md section 5): when the
engine exits they are re-parented, not to us but to init, and a plain "my children" check
misses them. Making the test process a child subreaper brings those orphans back under it,
so one descendant walk sees everything a test started.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import time

import psutil

_PR_SET_CHILD_SUBREAPER = 36


def become_subreaper() -> bool:
    """Adopt orphaned descendants (Linux only); False where unsupported."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def descendant_pids() -> set[int]:
    """Live descendants of this process.

    Zombies are dead and skipped; they are not reaped here, because a zombie child may
    still belong to a ``Popen`` whose owner wants its exit status.
    """
    alive: set[int] = set()
    for proc in psutil.Process().children(recursive=True):
        with contextlib.suppress(psutil.Error):
            if proc.status() != psutil.STATUS_ZOMBIE:
                alive.add(proc.pid)
    return alive


def _describe(pid: int) -> str:
    try:
        proc = psutil.Process(pid)
        return f"{pid} {' '.join(proc.cmdline())[:120] or proc.name()}"
    except psutil.Error:
        return f"{pid} (gone)"


def leftovers(before: set[int], grace: float = 3.0) -> list[str]:
    """Processes started since ``before`` that are still alive after ``grace`` seconds.

    They are killed before returning, so one leaky test never poisons the next.
    """
    deadline = time.monotonic() + grace
    extra = descendant_pids() - before
    while extra and time.monotonic() < deadline:
        time.sleep(0.05)
        extra = descendant_pids() - before
    found = [_describe(pid) for pid in sorted(extra)]
    for pid in extra:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 2.0
    while extra & descendant_pids() and time.monotonic() < deadline:
        time.sleep(0.02)
    return found


def assert_no_leftovers(before: set[int], grace: float = 3.0) -> None:
    """Fail (AssertionError) naming every process left alive since ``before``."""
    found = leftovers(before, grace)
    if found:
        raise AssertionError("processes left running: " + "; ".join(found))
