"""Every call's record (``evidence/model-calls.ndjson``) and the run's totals for the manifest.

A record is written when its call ends (the stream closed, the client went away, or the
upstream failed); the totals are what ``metadata.usage`` (``source: "gateway"``) and
``metadata.cost`` report.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from holon_core.gateway import prices
from holon_core.gateway.price_table import PriceTable
from holon_core.gateway.usage import Tokens

#: Statuses an API uses for "slow down" (Anthropic's overload is 529).
RATE_LIMITED = frozenset({429, 529})


@dataclass(slots=True)
class CallRecord:
    time: str
    api: str
    kind: str
    method: str
    path: str
    model: str | None
    status: int | None
    attempt: int
    first_byte_ms: float | None
    total_ms: float
    tokens: Tokens | None
    cost_usd: float | None
    #: Why the call ended abnormally: "client_closed", "upstream_error: ...".
    error: str | None = None
    retry_after: str | None = None
    #: When the rate limit or quota resets, as the API announced it (ISO 8601, UTC).
    reset_at: str | None = None
    #: The output limit the budget clamped the request to (``gateway/clamp.py``).
    clamped_to: int | None = None

    def line(self) -> str:
        data: dict[str, Any] = {
            "time": self.time,
            "api": self.api,
            "kind": self.kind,
            "method": self.method,
            "path": self.path,
            "model": self.model,
            "status": self.status,
            "attempt": self.attempt,
            "latency_ms": {"first_byte": self.first_byte_ms, "total": self.total_ms},
            "usage": self.tokens.as_dict() if self.tokens is not None else None,
            "cost_usd": self.cost_usd,
        }
        if self.error:
            data["error"] = self.error
        if self.retry_after:
            data["retry_after"] = self.retry_after
        if self.reset_at:
            data["reset_at"] = self.reset_at
        if self.clamped_to is not None:
            data["output_limit_clamped_to"] = self.clamped_to
        return json.dumps(data, separators=(",", ":"))


@dataclass
class _ModelTotals:
    tokens: Tokens = field(default_factory=Tokens)
    calls: int = 0
    cost_usd: float | None = 0.0


class Meter:
    """Collects call records (thread-safe); ``sink`` receives each ndjson line."""

    def __init__(self, sink: Callable[[str], None] | None = None) -> None:
        self.sink = sink
        self._lock = threading.Lock()
        self.records: list[CallRecord] = []
        self._failures: dict[tuple[str, int], int] = {}

    def attempt(self, path: str, body_key: int) -> int:
        """1 for a new request; n+1 after n failed tries of the same path and body."""
        with self._lock:
            return self._failures.get((path, body_key), 0) + 1

    def add(self, record: CallRecord, body_key: int) -> None:
        ok = record.status is not None and record.status < 400 and record.error is None
        with self._lock:
            self.records.append(record)
            key = (record.path, body_key)
            if ok:
                self._failures.pop(key, None)
            else:
                self._failures[key] = self._failures.get(key, 0) + 1
        if self.sink is not None:
            self.sink(record.line())

    def usage(self) -> dict[str, Any]:
        """``metadata.usage`` as the gateway saw it: totals, per model, call counts."""
        with self._lock:
            records = list(self.records)
        total = Tokens()
        by_model: dict[str, _ModelTotals] = {}
        for rec in records:
            if rec.kind != "model":
                continue
            entry = by_model.setdefault(rec.model or "unknown", _ModelTotals())
            entry.calls += 1
            if rec.tokens is not None:
                for name, value in rec.tokens.as_dict().items():
                    setattr(entry.tokens, name, getattr(entry.tokens, name) + value)
                    setattr(total, name, getattr(total, name) + value)
                if rec.cost_usd is None or entry.cost_usd is None:
                    entry.cost_usd = None
                else:
                    entry.cost_usd += rec.cost_usd
        models = [
            {
                "model": name,
                **entry.tokens.as_dict(),
                "calls": entry.calls,
                "cost_usd": None if entry.cost_usd is None else round(entry.cost_usd, 6),
            }
            for name, entry in sorted(by_model.items())
        ]
        return {
            "source": "gateway",
            **total.as_dict(),
            "total_tokens": total.input_tokens + total.output_tokens,
            "calls": len(records),
            "model_calls": sum(1 for r in records if r.kind == "model"),
            "rate_limited_calls": sum(1 for r in records if r.status in RATE_LIMITED),
            "failed_calls": sum(
                1
                for r in records
                if r.status not in RATE_LIMITED and (r.error or (r.status or 500) >= 400)
            ),
            "models": models,
            "rate_limit_reset_at": max((r.reset_at for r in records if r.reset_at), default=None),
        }

    def cost(self) -> tuple[float | None, list[str]]:
        """The run's cost in USD (None when a metered call's model has no price) and the
        models without a price."""
        with self._lock:
            records = [r for r in self.records if r.kind == "model" and r.tokens is not None]
        unpriced = sorted({r.model or "unknown" for r in records if r.cost_usd is None})
        if unpriced:
            return None, unpriced
        return round(sum(r.cost_usd or 0.0 for r in records), 6), []


def now_iso() -> str:
    stamp = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(stamp)) + f".{int(stamp % 1 * 1000):03d}Z"


def price_call(
    api: str, model: str | None, tokens: Tokens | None, table: PriceTable | None = None
) -> float | None:
    """The user's table first (``HOLON_PRICES``), then genai-prices; None when neither knows."""
    if tokens is None:
        return None
    own = table.models.get(model) if table is not None and model else None
    if own is not None:
        return own.cost(tokens)
    return prices.price(api, model, tokens)
