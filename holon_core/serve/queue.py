"""Which turn runs when: a bounded queue, one turn at a time per session, a global limit.

Rules, checked in arrival order every time a turn arrives or ends:

- at most ``max_concurrent`` turns run at once (default 1: one global serial order);
- one turn at a time per session, in arrival order (a turn that continues one still queued
  or running waits for it: ``previous_response_id`` chains in order);
- the mounted workspace has one writer: a turn on the shared workspace runs only while no
  other turn uses it, and an isolated turn that copies it (the first of its session) only
  while no turn writes it. Two engines editing one tree would race, and each turn's
  ``diff.patch`` would hold the other's edits; so turns run side by side only when they
  work on isolated copies;
- at most ``max_queued`` turns wait; one more is refused (:class:`QueueFull`, HTTP 429).

The queue knows nothing of HTTP or of how a turn runs: ``start`` is called for each ticket
that may run (from whichever thread made room), and :meth:`TurnQueue.finish` is called when
it has ended. A ticket still waiting can be withdrawn (a cancel, a client gone, a shutdown):
it then never starts.
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

#: Seconds suggested to a refused client before any turn has ended (no measured duration).
DEFAULT_RETRY_AFTER = 5
#: Recent turn durations kept to suggest a ``retry-after``.
DURATIONS_KEPT = 20

State = Literal["queued", "running", "done", "withdrawn"]
WorkspaceUse = Literal["write", "read", "none"]


class QueueClosed(Exception):
    """The server is shutting down: no turn is accepted any more."""


class QueueFull(Exception):
    """No room in the queue; ``retry_after`` seconds is when a place may be free."""

    def __init__(self, queued: int, retry_after: int) -> None:
        super().__init__(f"{queued} turns are already waiting")
        self.queued = queued
        self.retry_after = retry_after


@dataclass(eq=False)
class Ticket:
    """One accepted turn on its way through the queue."""

    response_id: str
    session_id: str
    turn_id: str
    workspace_use: WorkspaceUse
    #: Anything the caller keeps with the ticket (the planned turn, its event channel).
    payload: Any = None
    state: State = "queued"
    enqueued_at: float = field(default_factory=time.time)
    started_at: float | None = None
    #: Why a withdrawn ticket left the queue ("cancelled", "client_disconnected", ...).
    withdrawn_because: str | None = None
    done: threading.Event = field(default_factory=threading.Event)

    def describe(self) -> dict[str, Any]:
        since = self.started_at if self.state == "running" else self.enqueued_at
        return {
            "response_id": self.response_id,
            "session_id": self.session_id,
            "turn_id": self.turn_id,
            "since": round(since or 0.0, 3),
        }


class TurnQueue:
    def __init__(
        self, start: Callable[[Ticket], None], *, max_concurrent: int = 1, max_queued: int = 8
    ) -> None:
        if max_concurrent < 1 or max_queued < 0:
            raise ValueError("max_concurrent must be at least 1 and max_queued at least 0")
        self.max_concurrent = max_concurrent
        self.max_queued = max_queued
        self._start = start
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._waiting: deque[Ticket] = deque()
        self._running: list[Ticket] = []
        self._durations: deque[float] = deque(maxlen=DURATIONS_KEPT)
        self._closed = False
        self.turns_served = 0

    def submit(self, ticket: Ticket) -> bool:
        """Accept ``ticket``; True when it started at once. QueueFull when there is no room,
        QueueClosed after :meth:`close`."""
        with self._lock:
            if self._closed:
                raise QueueClosed
            self._waiting.append(ticket)
            starting = self._pick()
            if ticket.state == "queued" and len(self._waiting) > self.max_queued:
                self._waiting.remove(ticket)
                raise QueueFull(len(self._waiting), self._retry_after())
        self._launch(starting)
        return ticket.state != "queued"

    def finish(self, ticket: Ticket) -> None:
        """``ticket`` has ended: free its place and start whatever may run now."""
        with self._lock:
            if ticket in self._running:
                self._running.remove(ticket)
                if ticket.started_at is not None:
                    self._durations.append(time.time() - ticket.started_at)
            ticket.state = "done"
            self.turns_served += 1
            starting = self._pick()
            self._changed.notify_all()
        ticket.done.set()
        self._launch(starting)

    def withdraw(self, ticket: Ticket, because: str) -> bool:
        """Take a waiting ticket out (it never starts); False when it already started."""
        with self._lock:
            if ticket.state != "queued":
                return False
            self._waiting.remove(ticket)
            ticket.state, ticket.withdrawn_because = "withdrawn", because
            starting = self._pick()  # a ticket it held back may run now
            self._changed.notify_all()
        ticket.done.set()
        self._launch(starting)
        return True

    def close(self) -> list[Ticket]:
        """Accept no more tickets; the ones still waiting, in order."""
        with self._lock:
            self._closed = True
            return list(self._waiting)

    def find(self, response_id: str) -> Ticket | None:
        with self._lock:
            for ticket in (*self._running, *self._waiting):
                if ticket.response_id == response_id:
                    return ticket
        return None

    def tickets(self) -> tuple[list[Ticket], list[Ticket]]:
        """(running, waiting), each in order."""
        with self._lock:
            return list(self._running), list(self._waiting)

    def wait_idle(self, *, include_waiting: bool) -> None:
        """Block until nothing runs (and, with ``include_waiting``, nothing waits)."""
        with self._changed:
            while self._running or (include_waiting and self._waiting):
                self._changed.wait()

    def _pick(self) -> list[Ticket]:
        """Move the tickets that may run now from waiting to running (lock held)."""
        starting: list[Ticket] = []
        busy_sessions = {t.session_id for t in self._running}
        uses = [t.workspace_use for t in self._running]
        for ticket in list(self._waiting):
            if len(self._running) >= self.max_concurrent:
                break
            blocked = ticket.session_id in busy_sessions or _conflicts(ticket.workspace_use, uses)
            busy_sessions.add(ticket.session_id)  # later turns of this session keep their order
            if blocked:
                continue
            self._waiting.remove(ticket)
            self._running.append(ticket)
            uses.append(ticket.workspace_use)
            ticket.state, ticket.started_at = "running", time.time()
            starting.append(ticket)
        return starting

    def _launch(self, tickets: list[Ticket]) -> None:
        for ticket in tickets:
            self._start(ticket)

    def _retry_after(self) -> int:
        if not self._durations:
            return DEFAULT_RETRY_AFTER
        mean = sum(self._durations) / len(self._durations)
        return max(1, math.ceil(mean / self.max_concurrent))


def _conflicts(use: WorkspaceUse, running: list[WorkspaceUse]) -> bool:
    """A writer of the shared workspace excludes everyone using it; readers share it."""
    if use == "write":
        return any(other != "none" for other in running)
    if use == "read":
        return "write" in running
    return False
