"""A stop signal's handler sets the run's event without taking a lock
(``holon_core/process/signal_latch.py``).

A handler runs on the main thread between two bytecodes of whatever it interrupted. When
that was ``event.wait()`` holding the event's lock (holon batch's pool waits so between
cells), a handler calling ``event.set()`` waited for good on a lock its own thread held.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading

from holon_core.process.signal_latch import SignalLatch


def test_fire_returns_while_the_interrupted_code_holds_the_events_lock() -> None:
    event = threading.Event()
    latch = SignalLatch(event)
    fired: list[bool] = []
    # what the main thread holds inside event.wait(), right as a signal lands
    with event._cond:  # type: ignore[attr-defined]
        firing = threading.Thread(target=lambda: fired.append(latch.fire()), daemon=True)
        firing.start()
        firing.join(5)
        assert fired == [True], "fire() waited on the event's lock"
    assert event.wait(5), "the event was never set"
    assert latch.fire() is False  # once
    latch.close()


def test_close_ends_the_latch_without_setting_the_event() -> None:
    event = threading.Event()
    latch = SignalLatch(event)
    latch.close()
    latch._relay.join(5)
    assert not latch._relay.is_alive() and not event.is_set()
    assert latch.fire() is False


WAITING_MAIN = textwrap.dedent(
    """
    import os, signal, sys, threading
    from holon_core.process.signal_latch import SignalLatch

    cancel = threading.Event()
    latch = SignalLatch(cancel)
    signal.signal(signal.SIGTERM, lambda *_: latch.fire())
    print("ready", flush=True)
    while not cancel.wait(0.0005):  # the main thread in and out of the event's lock
        pass
    print("stopped", flush=True)
    """
)


def test_a_main_thread_waiting_on_the_event_is_stopped_by_a_signal() -> None:
    """End to end, through a real signal: a process whose main thread waits on the event in
    short slices gets one SIGTERM and ends. (The deadlock itself needs the signal inside a
    window of a few bytecodes; the first test holds that window open instead.)"""
    for _ in range(5):
        proc = subprocess.Popen(
            [sys.executable, "-c", WAITING_MAIN], stdout=subprocess.PIPE, text=True
        )
        assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
        os.kill(proc.pid, signal.SIGTERM)
        try:
            out, _ = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            raise AssertionError("the process hung in its signal handler") from None
        assert out == "stopped\n"
