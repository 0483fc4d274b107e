"""Budgets: the run's limits on model calls, enforced where the calls pass (docs/gateway.md).

A call is admitted while nothing is spent beyond a limit; once a limit is reached the next
model call is answered with a non-retryable error in the wire's own format, and the run is
marked exceeded so holon stops the engine (reason ``budget_exceeded``). Overshoot: the call
that crosses a limit completes, and so do calls already in flight beside it (engines make
one model call at a time); its output limit was clamped to what the budget still allowed
(:mod:`holon_core.gateway.clamp`), so it overshoots by its input at most.
A cost limit cannot be kept for a model without a price: such a call's successor is refused.

A serve session's budget (``serve --max-cost``) is the parent of each turn's guard: a turn's
call is admitted while neither the turn's limits nor the session's are reached, and what it
spends counts for both, so the session's figure runs on across turns.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from holon_core.gateway.usage import Tokens


def parse_usd(text: str) -> float | None:
    """A cost limit as given (``2.50``): a positive number of US dollars, else None."""
    try:
        value = float(text)
    except ValueError:
        return None
    return value if value > 0 and value != float("inf") else None


@dataclass(frozen=True)
class Limits:
    max_cost_usd: float | None = None
    max_tokens: int | None = None
    max_model_calls: int | None = None

    def any(self) -> bool:
        return any(
            v is not None for v in (self.max_cost_usd, self.max_tokens, self.max_model_calls)
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            k: v
            for k, v in (
                ("max_cost_usd", self.max_cost_usd),
                ("max_tokens", self.max_tokens),
                ("max_model_calls", self.max_model_calls),
            )
            if v is not None
        }


class BudgetGuard:
    """Spending so far, and whether the run went over (thread-safe)."""

    def __init__(self, limits: Limits, parent: BudgetGuard | None = None) -> None:
        self.limits = limits
        #: The serve session's guard, which this turn's spending counts toward too.
        self.parent = parent
        self.cost_usd = 0.0
        self.tokens = 0
        self.model_calls = 0
        self.unpriced: str | None = None
        #: Which limit stopped the run ("max_cost_usd", ...), once a call was refused.
        self.exceeded: str | None = None
        self.message: str | None = None
        self._lock = threading.Lock()

    def admit(self) -> str | None:
        """Before a model call: None to let it through, else the refusal's message."""
        with self._lock:
            reached = self._reached()
            refused = None if reached is not None or self.parent is None else self.parent.admit()
            if refused is not None:
                assert self.parent is not None
                limit, message = self.parent.exceeded or "", self.parent.message or refused
                reached = f"session.{limit}", f"the serve session's budget: {message}"
            if reached is None:
                self.model_calls += 1
                return None
            limit, message = reached
            if self.exceeded is None:
                self.exceeded, self.message = limit, message
            return message

    def stop_if_spent(self) -> str | None:
        """Before a run starts: a limit reached already (this one's or the serve session's,
        spent by earlier turns) is recorded as what stopped the run; its message, or None."""
        with self._lock:
            reached = self._reached()
        if reached is None and self.parent is not None:
            with self.parent._lock:
                spent = self.parent._reached()
            if spent is not None:
                reached = f"session.{spent[0]}", f"the serve session's budget: {spent[1]}"
        if reached is not None and self.exceeded is None:
            self.exceeded, self.message = reached
        return None if reached is None else reached[1]

    def left(self) -> tuple[int | None, float | None]:
        """Tokens and US dollars still allowed (None: no such limit), the session's included:
        what a call's output limit is clamped to (:mod:`holon_core.gateway.clamp`)."""
        with self._lock:
            lim = self.limits
            tokens = None if lim.max_tokens is None else lim.max_tokens - self.tokens
            cost = None if lim.max_cost_usd is None else lim.max_cost_usd - self.cost_usd
        if self.parent is not None:
            more_tokens, more_cost = self.parent.left()
            if more_tokens is not None:
                tokens = more_tokens if tokens is None else min(tokens, more_tokens)
            if more_cost is not None:
                cost = more_cost if cost is None else min(cost, more_cost)
        return tokens, cost

    def settle(self, tokens: Tokens | None, cost: float | None, model: str | None) -> None:
        """After a model call: add what it spent (to the session's figure too)."""
        with self._lock:
            if tokens is not None:
                self.tokens += tokens.input_tokens + tokens.output_tokens
                if cost is None and self.unpriced is None:
                    self.unpriced = model or "unknown"
            self.cost_usd += cost or 0.0
        if self.parent is not None:
            self.parent.settle(tokens, cost, model)

    def _reached(self) -> tuple[str, str] | None:
        lim = self.limits
        if lim.max_cost_usd is not None and self.unpriced is not None:
            return "max_cost_usd", (
                f"model {self.unpriced} has no price (genai-prices, HOLON_PRICES), so the "
                f"cost budget of ${lim.max_cost_usd} cannot be kept"
            )
        if lim.max_cost_usd is not None and self.cost_usd >= lim.max_cost_usd:
            return "max_cost_usd", (
                f"spent ${self.cost_usd:.6f} of max_cost_usd ${lim.max_cost_usd}"
            )
        if lim.max_tokens is not None and self.tokens >= lim.max_tokens:
            return "max_tokens", f"used {self.tokens} of max_tokens {lim.max_tokens} tokens"
        if lim.max_model_calls is not None and self.model_calls >= lim.max_model_calls:
            return "max_model_calls", (
                f"made {self.model_calls} of max_model_calls {lim.max_model_calls} model calls"
            )
        return None

    def record(self) -> dict[str, Any]:
        """``metadata.budget`` (with the serve session's under ``session``)."""
        with self._lock:
            record: dict[str, Any] = {
                **self.limits.as_dict(),
                "spent": {
                    "cost_usd": round(self.cost_usd, 6),
                    "tokens": self.tokens,
                    "model_calls": self.model_calls,
                },
                "exceeded": self.exceeded,
            }
        if self.parent is not None:
            record["session"] = self.parent.record()
        return record
