"""Setting a ``threading.Event`` from a signal handler, safely.

``Event.set`` takes the event's lock. A second stop signal arriving while the first handler
is inside ``set`` runs its handler on the same thread, which then waits for good on the lock
the interrupted handler holds (a dying parent's SIGTERM and its session's SIGHUP come
together). The latch sets the event once; a later signal finds it fired and takes no lock.
"""

from __future__ import annotations

import threading


class SignalLatch:
    def __init__(self, event: threading.Event) -> None:
        self.event = event
        self.fired = False

    def fire(self) -> bool:
        """Set the event the first time (True); afterwards do nothing (False)."""
        if self.fired:
            return False
        self.fired = True  # before set(): a signal landing inside set() must not call it again
        self.event.set()
        return True
