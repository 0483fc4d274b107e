"""Clamping a model call's output limit to what the run's budget still allows.

A limit is checked before each call, but a call's spend is known only at its end; so the
request's own output limit (Anthropic ``max_tokens``, Responses ``max_output_tokens``, Chat
``max_completion_tokens``/``max_tokens``, Gemini ``generationConfig.maxOutputTokens``) is
lowered, before it is forwarded, to the tokens left under ``max_tokens`` and to what the
dollars left under ``max_cost_usd`` buy at the model's output price. The call that crosses a
limit then overshoots by its input at most (docs/gateway.md, Budgets). A limit the request
already keeps lower is left alone; an Anthropic thinking budget that would no longer fit
under the clamped ``max_tokens`` is lowered too (or dropped below the API's minimum of 1024).
"""

from __future__ import annotations

import json
import math
from typing import Any

from holon_core.gateway.apis import (
    ANTHROPIC_MESSAGES,
    GOOGLE_GENERATE_CONTENT,
    OPENAI_RESPONSES,
    path_model,
)
from holon_core.gateway.budget import BudgetGuard
from holon_core.gateway.meter import price_call
from holon_core.gateway.price_table import PriceTable
from holon_core.gateway.usage import Tokens

_MILLION = 1_000_000
#: Anthropic's smallest thinking budget.
_MIN_THINKING = 1024


class OutputClamp:
    """Per gateway: the output prices it looked up, and the clamping of one request body."""

    def __init__(self, table: PriceTable | None) -> None:
        self.table = table
        self._prices: dict[tuple[str, str], float | None] = {}

    def apply(
        self, api: str, body: bytes, path: str, guard: BudgetGuard
    ) -> tuple[bytes, int | None]:
        """``body`` with its output limit clamped to what ``guard`` allows, and the new limit
        (the body unchanged, None: not a JSON object, no limit to keep, or within it)."""
        try:
            data = json.loads(body)
        except ValueError:
            return body, None
        if not isinstance(data, dict):
            return body, None
        allowed = self.allowed(guard, api, request_model(data) or path_model(path))
        new = None if allowed is None else clamp_output(api, data, allowed)
        if new is None:
            return body, None
        return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode(), new

    def allowed(self, guard: BudgetGuard, api: str, model: str | None) -> int | None:
        """Output tokens the budget still allows for one call (None: no token or cost limit,
        or no price to turn dollars into tokens); at least 1."""
        tokens, dollars = guard.left()
        bounds = [] if tokens is None else [tokens]
        per_token = self._output_price(api, model) if dollars is not None else None
        if dollars is not None and per_token:
            bounds.append(math.floor(dollars / per_token))
        return max(min(bounds), 1) if bounds else None

    def _output_price(self, api: str, model: str | None) -> float | None:
        if model is None:
            return None
        key = (api, model)
        if key not in self._prices:
            cost = price_call(api, model, Tokens(output_tokens=_MILLION), self.table)
            self._prices[key] = None if cost is None else cost / _MILLION
        return self._prices[key]


def request_model(data: dict[str, Any]) -> str | None:
    model = data.get("model")
    return model if isinstance(model, str) else None


def clamp_output(api: str, data: dict[str, Any], allowed: int) -> int | None:
    """Lower ``data``'s output limit to ``allowed`` in place; the new limit, or None when the
    request's own limit was already within it."""
    if api == GOOGLE_GENERATE_CONTENT:
        config = data.get("generationConfig")
        if not isinstance(config, dict):
            config = data["generationConfig"] = {}
        return _lower(config, "maxOutputTokens", allowed)
    if api == ANTHROPIC_MESSAGES:
        new = _lower(data, "max_tokens", allowed)
        if new is not None:
            _fit_thinking(data, new)
        return new
    if api == OPENAI_RESPONSES:
        return _lower(data, "max_output_tokens", allowed)
    name = "max_tokens" if "max_tokens" in data and "max_completion_tokens" not in data else None
    return _lower(data, name or "max_completion_tokens", allowed)


def _lower(holder: dict[str, Any], name: str, allowed: int) -> int | None:
    current = holder.get(name)
    if isinstance(current, int) and not isinstance(current, bool) and current <= allowed:
        return None
    holder[name] = allowed
    return allowed


def _fit_thinking(data: dict[str, Any], max_tokens: int) -> None:
    thinking = data.get("thinking")
    if not isinstance(thinking, dict) or thinking.get("type") != "enabled":
        return
    budget = thinking.get("budget_tokens")
    if not isinstance(budget, int) or isinstance(budget, bool) or budget < max_tokens:
        return
    if max_tokens - 1 >= _MIN_THINKING:
        thinking["budget_tokens"] = max_tokens - 1
    else:
        del data["thinking"]
