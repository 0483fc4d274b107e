"""A serve session's gateway: started once with the session, leased to every turn.

The session's own budget (``holon-agent serve --max-cost``, or ``HOLON_MAX_COST_USD`` in its
environment) is kept here, as the parent of each turn's (docs/gateway.md): what a turn spends
counts toward it, and once it is spent every later turn ends ``budget_exceeded``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from holon_core.gateway.admit import GatewaySettingInvalid, gateway_problem
from holon_core.gateway.budget import Limits, parse_usd
from holon_core.gateway.setting import gateway_setting

if TYPE_CHECKING:
    from holon_core.engine.adapter import EngineAdapter
    from holon_core.gateway.session import Gateway


def open_shared(adapter: EngineAdapter, env: Mapping[str, str]) -> Gateway | str | None:
    """The session's gateway, or why its engine bypasses one, or None (off, or no model API).

    Raises :class:`GatewaySettingInvalid` for a setting or session budget it cannot keep.
    Once the gateway holds the key, this process drops it from its environment and becomes
    non-dumpable, as a one-shot holon-agent does.
    """
    problem = gateway_problem(adapter.model_api, env, None, calls_models=adapter.calls_models)
    if problem is not None:
        raise problem
    if not gateway_setting(env) or adapter.model_api is None:
        return None
    from holon_core.gateway.harden import harden_process
    from holon_core.gateway.price_table import PriceTableError
    from holon_core.gateway.session import start_gateway

    raw = (env.get("HOLON_MAX_COST_USD") or "").strip()
    limits = Limits(max_cost_usd=parse_usd(raw) if raw else None)
    try:
        started = start_gateway(adapter, env, limits)
    except PriceTableError as exc:
        raise GatewaySettingInvalid(str(exc)) from exc
    if isinstance(started, str):
        if limits.any():
            raise GatewaySettingInvalid(
                f"a session budget (max_cost_usd {limits.max_cost_usd}) needs the model "
                f"gateway, which this engine bypasses: {started}; remove --max-cost or set "
                "the engine's API key variable"
            )
        return started
    harden_process(adapter.credential_env)
    return started


def close_shared(shared: object) -> None:
    """Stop the session's gateway (after its last turn)."""
    from holon_core.gateway.session import Gateway

    if isinstance(shared, Gateway):
        shared.close()
