"""Which watchdog a supervised run gets: its own, or the one serve mode's runs share.

A watchdog (:mod:`holon_core.process.watchdog`) kills a run's tree if the agent itself is
SIGKILLed. Each run claims its watchdog (:func:`~holon_core.process.claims.claiming`), so no
other run beside it takes the watchdog for an orphan of its engine.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from holon_core.process.claims import claiming, release_claims
from holon_core.process.watchdog import Watchdog

if TYPE_CHECKING:
    from collections.abc import Iterator


class _Kept:
    """The watchdog the runs of this process share inside :func:`shared_watchdog`."""

    wanted = False
    watchdog: Watchdog | None = None
    #: A run has it armed: a run beside it (serve's side-by-side turns) gets its own, since
    #: a watchdog guards one tree at a time.
    armed = False


@contextlib.contextmanager
def shared_watchdog() -> Iterator[None]:
    """Inside, the runs of this process (serve mode's turns) share one watchdog; stopped after.

    A watchdog per run costs a fork and a reap: ~20 ms of a serve turn on a loaded machine.
    """
    _Kept.wanted = True
    try:
        yield
    finally:
        _Kept.wanted = _Kept.armed = False
        if _Kept.watchdog is not None:
            _Kept.watchdog.stop()
            _Kept.watchdog = None


def run_watchdog() -> Watchdog:
    """The run's watchdog, claimed (no other run's tree may take it for an orphan)."""
    with claiming() as claimed:
        if not _Kept.wanted or _Kept.armed:
            watchdog = Watchdog()
        else:
            if _Kept.watchdog is None or not _Kept.watchdog.alive():
                if _Kept.watchdog is not None:
                    _Kept.watchdog.stop()
                _Kept.watchdog = Watchdog()
            watchdog, _Kept.armed = _Kept.watchdog, True
        if watchdog.pid is not None:
            claimed.helpers.add(watchdog.pid)
    return watchdog


def release_watchdog(watchdog: Watchdog) -> None:
    """The run's tree is gone: a shared watchdog is disarmed, a run's own one stopped."""
    if watchdog is _Kept.watchdog:
        watchdog.disarm()
        with claiming():
            _Kept.armed = False
    else:
        release_claims(watchdog.pid)
        watchdog.stop()
