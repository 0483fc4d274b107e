"""Which of this process's children belong to which run, when runs go side by side.

serve mode runs turns in one process; a run must never take another run's engine or
watchdog for an orphan of its own engine. See :class:`Claims`.
"""

from __future__ import annotations

import contextlib
import threading
from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from collections.abc import Iterator


class Claims:
    """Pids this process started for its runs, while each run lasts: engine roots and
    holon's own helpers (watchdogs).

    serve mode runs turns side by side in one process, so a child of ours that appeared after
    a run's start is not always an orphan of that run's engine: it may be another run's engine
    or watchdog. Starting such a process (:func:`claiming`) and sorting our children happen
    under one lock, so a tree never adopts a process another run is about to claim.
    """

    lock = threading.Lock()
    engines: ClassVar[set[int]] = set()
    helpers: ClassVar[set[int]] = set()
    #: Several runs may be under way at once (:func:`runs_side_by_side`).
    side_by_side = False


@contextlib.contextmanager
def claiming() -> Iterator[type[Claims]]:
    """Hold while starting a process no other run may adopt, and record its pid in it."""
    with Claims.lock:
        yield Claims


@contextlib.contextmanager
def runs_side_by_side(enabled: bool = True) -> Iterator[None]:
    """Inside, several runs of this process may be under way at once (serve mode with
    ``--max-concurrent`` above 1). Each run's own children (its git, its copies) are then
    children of ours that no claim covers, so an orphan is adopted only by the run whose
    marker it carries."""
    before = Claims.side_by_side
    Claims.side_by_side = enabled or before
    try:
        yield
    finally:
        Claims.side_by_side = before


def release_claims(*pids: int | None) -> None:
    """The run that claimed these pids is over: they are nobody's any more."""
    with Claims.lock:
        gone = {pid for pid in pids if pid is not None}
        Claims.engines.difference_update(gone)
        Claims.helpers.difference_update(gone)
