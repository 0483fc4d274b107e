"""Engines held back until their API's rate limit or quota resets.

A cell that ends ``rate_limited`` with a reset time its API announced (the model gateway's
``metadata.usage.rate_limit_reset_at``) holds back its engine: no new cell of that engine
starts before then, and the cell's own retry waits for it instead of burning its tries on
answers that cannot succeed yet. Cells of a job share the job's environment, so one engine
is one credential here. The local pool sees a hold as soon as a try ends; the Ray executor's
tries run on the worker, so its pool sees the hold when the cell's last try comes back.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import datetime

from holon_core.batch.results import CellResult

#: The longest hold honoured: an announced reset further away is taken as this.
MAX_HOLD = 6 * 3600.0


def announced_reset(result: CellResult) -> float | None:
    """When a rate-limited result's quota resets (epoch seconds), if its API said so."""
    if result.reason != "rate_limited" or not result.rate_limit_reset_at:
        return None
    try:
        when = datetime.fromisoformat(result.rate_limit_reset_at.replace("Z", "+00:00"))
    except ValueError:
        return None
    return when.timestamp()


class Holds:
    """Engine -> the time (epoch seconds) its cells may start again (thread-safe)."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        self._until: dict[str, float] = {}
        self._lock = threading.Lock()

    def note(self, engine: str, result: CellResult) -> float | None:
        """Hold ``engine`` until the reset ``result`` announced; seconds to wait, or None."""
        reset = announced_reset(result)
        if reset is None:
            return None
        now = self.clock()
        until = min(reset, now + MAX_HOLD)
        with self._lock:
            self._until[engine] = max(until, self._until.get(engine, 0.0))
        return max(until - now, 0.0)

    def held(self, engine: str) -> bool:
        with self._lock:
            return self._until.get(engine, 0.0) > self.clock()

    def next_release(self) -> float | None:
        """Seconds until the first hold still in force ends (None: none is)."""
        now = self.clock()
        with self._lock:
            left = [until - now for until in self._until.values() if until > now]
        return min(left) if left else None
