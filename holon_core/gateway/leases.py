"""Who a call belongs to: each run through a gateway holds a lease (its own placeholders, its
meter, its budget), and a call is that run's whose placeholder it carries.

A one-shot run's gateway has one lease; a serve session's gateway outlives its turns and
gives each turn its own lease, so turns side by side are metered and budgeted apart, and a
finished turn's placeholders stop working the moment its lease is returned.
"""

from __future__ import annotations

import threading
from contextvars import ContextVar
from dataclasses import dataclass

from holon_core.gateway.budget import BudgetGuard
from holon_core.gateway.credentials import Credentials
from holon_core.gateway.meter import Meter

#: The lease of the call being forwarded, for what runs under the proxy in the same task (a
#: serve session's cassette recorder names each call's turn by it: holon_core/cassette).
CURRENT: ContextVar[Lease | None] = ContextVar("holon_gateway_lease", default=None)


@dataclass
class Lease:
    """One run's share of a gateway."""

    credentials: Credentials
    meter: Meter
    budget: BudgetGuard | None = None


class Leases:
    """The leases a gateway honours now (thread-safe: turns come and go while it serves)."""

    def __init__(self) -> None:
        self._leases: tuple[Lease, ...] = ()
        self._lock = threading.Lock()

    def add(self, lease: Lease) -> None:
        with self._lock:
            self._leases = (*self._leases, lease)

    def remove(self, lease: Lease) -> None:
        with self._lock:
            self._leases = tuple(held for held in self._leases if held is not lease)

    def swap_header(self, value: str) -> tuple[str, Lease] | None:
        """The header value with the real credential and whose it is; None: no placeholder."""
        for lease in self._leases:
            real = lease.credentials.swap_header(value)
            if real is not None:
                return real, lease
        return None

    def swap_query(
        self, pairs: list[tuple[str, str]]
    ) -> tuple[list[tuple[str, str]], Lease] | None:
        """Query pairs with ``key=`` swapped, and whose it is; None: a foreign key."""
        for lease in self._leases:
            swapped = lease.credentials.swap_query(pairs)
            if swapped is not None:
                return swapped, lease
        return None
