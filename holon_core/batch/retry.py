"""Which endings are the infrastructure's fault, and so worth another try.

A task's own outcome (success, failure of the work, needs_human) is data and is never
retried: retrying it would hide flakiness the job exists to measure. Only the provider
refusing for load (``rate_limited``), an engine error caused by the network, and a lost
worker (``lost_worker``, the Ray executor) are retried, with a doubling wait; a rate-limited
try whose API announced when its quota resets waits until then (:mod:`holon_core.batch.holds`).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable

from holon_core.batch.holds import Holds
from holon_core.batch.results import CellResult

INFRASTRUCTURE_REASONS = frozenset({"rate_limited", "lost_worker"})
_NETWORK = re.compile(
    r"network|connection (?:refused|reset|closed|error|aborted)|ECONN\w+|ETIMEDOUT|ENOTFOUND|"
    r"EAI_AGAIN|getaddrinfo|socket hang up|fetch failed|stream disconnected|"
    r"\b(?:502|503|504)\b|bad gateway|service unavailable|gateway time-?out",
    re.IGNORECASE,
)
MAX_WAIT = 300.0


def is_infrastructure(result: CellResult) -> bool:
    if result.reason in INFRASTRUCTURE_REASONS:
        return True
    return result.reason == "engine_error" and bool(_NETWORK.search(result.error or ""))


def with_retries(
    run_once: Callable[[int], CellResult],
    *,
    retries: int,
    backoff: float,
    cancel: threading.Event,
    holds: Holds | None = None,
    engine: str = "",
) -> CellResult:
    """``run_once(try_number)`` until it ends for a reason of its own, or the tries run out.

    The wait before try ``n + 1`` is ``backoff * 2**(n - 1)`` (at most 5 minutes), or until
    the reset a rate-limited try's API announced, when later (``holds`` then holds back the
    engine's other cells too); a cancel ends the wait at once and returns the last result.
    """
    tries = 0
    while True:
        tries += 1
        result = run_once(tries)
        result.tries = tries
        if tries > retries or not is_infrastructure(result) or cancel.is_set():
            return result
        wait = min(backoff * 2 ** (tries - 1), MAX_WAIT)
        held = holds.note(engine, result) if holds is not None else None
        if cancel.wait(wait if held is None else max(wait, held)):
            return result
