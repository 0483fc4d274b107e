"""Setting a ``threading.Event`` from a signal handler, safely.

A signal handler runs on the main thread, between two bytecodes of whatever it interrupted.
``Event.set`` takes the event's lock, so a handler that calls it waits for good when the
code it interrupted holds that lock: the main thread inside ``event.wait()`` (holon batch's
pool waits there between cells), or a first handler inside ``set`` when a second stop signal
lands (a dying parent's SIGTERM and its session's SIGHUP come together).

So the handler takes no lock at all: :meth:`SignalLatch.fire` writes one byte to a pipe,
and a thread of the latch's own, blocked reading it, sets the event. A later signal finds the
latch fired and does nothing.
"""

from __future__ import annotations

import contextlib
import os
import threading

_FIRE = b"!"
_CLOSE = b"."


class SignalLatch:
    """Sets ``event`` once after :meth:`fire`; :meth:`close` when no signal can come any more."""

    def __init__(self, event: threading.Event) -> None:
        self.event = event
        self.fired = False
        self._closed = False
        read_end, self._write_end = os.pipe()
        os.set_blocking(self._write_end, False)
        self._relay = threading.Thread(
            target=self._set_on_fire, args=(read_end,), name="holon-signal-latch", daemon=True
        )
        self._relay.start()

    def fire(self) -> bool:
        """Ask for the event to be set, the first time (True); afterwards do nothing (False).

        Safe in a signal handler: one ``os.write``, no lock. The event is set a moment later,
        by the latch's thread; code that must see it at once waits on it.
        """
        if self.fired or self._closed:
            return False
        self.fired = True
        with contextlib.suppress(OSError):  # full or closed: the first byte is on its way
            os.write(self._write_end, _FIRE)
        return True

    def close(self) -> None:
        """End the latch's thread (the event stays as it is) and free its pipe."""
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(OSError):
            os.write(self._write_end, _CLOSE)
        os.close(self._write_end)

    def _set_on_fire(self, read_end: int) -> None:
        try:
            if os.read(read_end, 1) == _FIRE:
                self.event.set()
        finally:
            os.close(read_end)
