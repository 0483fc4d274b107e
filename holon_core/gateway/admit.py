"""The gateway's settings checked before anything starts: the one check the run and the probe
share (``holon_core.agent.admission``), so a green probe is never followed by a run refused
for ``HOLON_GATEWAY``, ``HOLON_MAX_COST_USD``, ``HOLON_PRICES`` or a budget the gateway cannot
keep. Cheap: no HTTP stack, no price library (a model's price is checked when the run starts).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from holon_core.errors import HolonError
from holon_core.gateway.budget import parse_usd
from holon_core.gateway.setting import gateway_setting


class GatewaySettingInvalid(HolonError):
    reason = "invalid_input"


def gateway_problem(
    model_api: str | None,
    env: Mapping[str, str],
    budget: Mapping[str, Any] | None,
    engine: str | None = None,
    *,
    calls_models: bool = True,
) -> GatewaySettingInvalid | None:
    """What stops the run (or a serve session) before its engine starts, or None.

    ``calls_models`` False (the replay engine): a budget needs no gateway, nothing is spent."""
    try:
        wanted = gateway_setting(env)
    except ValueError as exc:
        return GatewaySettingInvalid(str(exc))
    raw = (env.get("HOLON_MAX_COST_USD") or "").strip()
    if raw and parse_usd(raw) is None:
        return GatewaySettingInvalid(
            f"HOLON_MAX_COST_USD={raw!r} (or --max-cost) is not a positive number of US "
            "dollars; set it like HOLON_MAX_COST_USD=2.50 or unset it"
        )
    limits = {k: v for k, v in (budget or {}).items() if v is not None}
    if raw:
        limits["max_cost_usd"] = raw
    if limits and unmetered(model_api, wanted, calls_models=calls_models):
        named = ", ".join(f"{k} {v}" for k, v in limits.items())
        if not wanted:
            why, fix = "HOLON_GATEWAY is off", "remove the budget or run with HOLON_GATEWAY=on"
        else:  # turning the gateway on cannot help: nothing of this engine's is metered
            named_engine = f"engine {engine}" if engine else "the engine"
            why = f"{named_engine} calls no model API the gateway can meter"
            fix = "remove the budget (--max-cost, HOLON_MAX_COST_USD, constraints.budget)"
        return GatewaySettingInvalid(
            f"a budget ({named}) is kept by the model gateway, but {why}; {fix}"
        )
    if wanted and model_api is not None and env.get("HOLON_PRICES"):
        from holon_core.gateway.price_table import PriceTableError, load_table

        try:
            load_table(env["HOLON_PRICES"])
        except PriceTableError as exc:
            return GatewaySettingInvalid(str(exc))
    return None


def unmetered(model_api: str | None, gateway_on: bool, *, calls_models: bool = True) -> bool:
    """True when the engine's model calls reach no meter, so no budget can be kept: it calls
    models, and the gateway is off or the engine names no model API it speaks. The rule of
    the run's admission and of ``holon batch``'s refusal before any cell (batch/metering.py)."""
    return calls_models and (not gateway_on or model_api is None)


def unpriced_problem(
    model_api: str | None, model: str | None, max_cost_usd: float | None, env: Mapping[str, str]
) -> GatewaySettingInvalid | None:
    """A cost budget for a model neither ``HOLON_PRICES`` nor genai-prices prices cannot be
    kept: the run and the probe refuse it alike. The price library is imported only when a
    cost budget and a model are both given."""
    if max_cost_usd is None or not model or model_api is None:
        return None
    from holon_core.gateway.meter import price_call
    from holon_core.gateway.price_table import PriceTableError, load_table
    from holon_core.gateway.usage import Tokens

    try:
        table = load_table(env["HOLON_PRICES"]) if env.get("HOLON_PRICES") else None
    except PriceTableError:
        return None  # gateway_problem names the table's problem
    if price_call(model_api, model, Tokens(), table) is not None:
        return None
    return GatewaySettingInvalid(
        f"a cost budget (max_cost_usd {max_cost_usd}) needs a price for model {model}, which "
        "genai-prices does not know; add it to a price table (HOLON_PRICES=FILE, "
        "docs/gateway.md) or use max_tokens / max_model_calls"
    )
