"""Stop signals that interrupt the work before the launch, adapter code included.

holon-agent's handlers set the run's cancel event, which the pipeline reads between steps and
the supervisor every tick. Before the engine process exists, though, the main thread may sit
in code that does not look at it: an adapter's ``launch()`` doing slow work (an install, a
warm-up), a plugin import, a preflight that hangs. A SIGTERM then waited for that code to
return, and a ``podman stop`` ran into its SIGKILL with no manifest.

So, until the launch plan is made, the handler also raises :class:`Interrupted` (a
BaseException, like Ctrl-C's KeyboardInterrupt, so an adapter's ``except Exception`` does not
swallow it; a blocking ``sleep``, ``wait`` or lock returns at once). :func:`until_launch` turns
it into the run's ``cancelled`` failure, after killing whatever was started meanwhile (a child
``subprocess.run`` left behind, or that child's own children: the agent is their subreaper).
Nothing before the launch writes outside holon's run dir and the output dir's record, so
stopping it anywhere is safe. Only the main thread takes signals (Python's rule): serve
mode's turns, on other threads, keep reading the cancel event.

Imported by ``holon-agent`` before everything else: standard library only at import time.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import TypeVar

from holon_core.process.signal_latch import SignalLatch

T = TypeVar("T")


class Interrupted(BaseException):
    """A stop signal arrived while :func:`until_launch` ran its step."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


class _State:
    #: Set by :func:`cancel_handler`: this process's stop signals may interrupt.
    enabled = False
    #: True while :func:`until_launch` runs its step on the main thread.
    armed = False


def cancel_handler(cancel: threading.Event) -> Callable[[int, FrameType | None], None]:
    """holon-agent's handler for its stop signals: set ``cancel``; interrupt when armed."""
    _State.enabled = True
    latch = SignalLatch(cancel)

    def on_signal(signum: int, _frame: FrameType | None) -> None:
        latch.fire()  # takes no lock on a second signal (process/signal_latch.py)
        if _State.armed:
            _State.armed = False  # once: a second signal must not interrupt the cleanup
            raise Interrupted(signum)

    return on_signal


def until_launch(cancel: threading.Event, step: Callable[[], T]) -> T:
    """``step()``, stopped by a stop signal; raises the run's ``Cancelled`` when stopped.

    Also when ``cancel`` was set before or during the step (an adapter that caught
    :class:`Interrupted` and returned anyway).
    """
    from holon_core.agent.state import Cancelled

    if not _State.enabled or threading.current_thread() is not threading.main_thread():
        return step()
    if cancel.is_set():
        raise Cancelled("the run was cancelled before the engine started")
    before = _own_children()
    how = "by a stop signal"
    # Both trys: a signal landing in the finally, before the flag is down, is caught too.
    try:
        try:
            _State.armed = True
            result = step()
        finally:
            _State.armed = False
    except Interrupted as exc:
        how = f"by {signal.Signals(exc.signum).name}"
    else:
        if not cancel.is_set():
            return result
    _kill_started_since(before)
    raise Cancelled(f"the run was cancelled {how} before the engine started")


def _own_children() -> set[int]:
    """This process's children now, from ``/proc/self/task/*/children`` (~20 us of CPU,
    where a scan of every process costs ~2 ms: this runs on every run), else by a scan."""
    try:
        found: set[int] = set()
        for task in Path("/proc/self/task").iterdir():
            listing = (task / "children").read_text(encoding="ascii")
            found.update(int(pid) for pid in listing.split())
        return found
    except (OSError, ValueError):  # no such file (an older kernel), a thread gone meanwhile
        from holon_core.process.tree import children_of

        return {proc.pid for proc in children_of(os.getpid())}


def _kill_started_since(before: set[int]) -> None:
    """Kill and reap this process's descendants, except the ``before`` children's trees."""
    from holon_core.process.tree import Proc, descendants, kill_tree

    def started() -> list[Proc]:
        kept = set(before)
        for pid in before:
            kept.update(proc.pid for proc in descendants(pid))
        return [proc for proc in descendants(os.getpid()) if proc.pid not in kept]

    kill_tree(started, timeout=5.0)
