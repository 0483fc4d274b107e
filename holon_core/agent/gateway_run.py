"""Where the run pipeline meets the model gateway (:mod:`holon_core.gateway`).

Just before the launch, :func:`start` opens the run's gateway and swaps the run context's
environment for the engine's (the endpoint pointing at the gateway, placeholders instead of
keys), so every adapter's ``launch()`` builds its command from it unchanged. While the engine
runs, :func:`abort_reason` tells the supervisor when the budget stopped the run; when the run
ends, :func:`stop` closes the gateway, :func:`overrule` makes a run the budget stopped a
``budget_exceeded`` failure, and :func:`merge_into` puts the figures into the manifest.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from holon_core.errors import HolonError
from holon_core.gateway.admit import GatewaySettingInvalid
from holon_core.record.outcome import Decision

if TYPE_CHECKING:
    from collections.abc import Mapping

    from holon_core.agent.state import RunState
    from holon_core.engine.adapter import RunContext
    from holon_core.gateway.budget import Limits
    from holon_core.gateway.session import GatewaySession

_KEY = "_gateway"


def start(run: RunState, context: RunContext, shared: object = None) -> None:
    """Open the gateway when ``HOLON_GATEWAY`` says so (unset: on) and the engine declares a
    model API; refuse a budget it cannot keep.

    ``shared`` is what a serve session started for all its turns
    (:func:`holon_core.gateway.session.start_gateway`: the running gateway, or why it is
    bypassed): a turn then takes a lease on it instead of starting its own.
    """
    from holon_core.gateway.admit import gateway_problem
    from holon_core.gateway.setting import gateway_setting

    one_shot = run.metadata.get("mode", "run") == "run"
    budget = context.spec.constraints.budget
    problem = gateway_problem(
        context.engine.model_api,
        run.env,
        budget.to_dict(exclude_none=False) if budget is not None else None,
        calls_models=context.engine.calls_models,
    )
    if problem is not None:  # the admission refused it already; kept for direct callers
        raise problem
    limits = budget_limits(context, run.env, one_shot=one_shot or shared is None)
    if not gateway_setting(run.env) or context.engine.model_api is None:
        return
    session = _open(run, context, limits, shared)
    if session is None:
        return
    run.metadata[_KEY] = session
    if session.server is None:
        run.log.warning("gateway bypassed", detail=session.bypass)
        if limits.any():
            raise GatewaySettingInvalid(
                f"a budget ({_named(limits)}) needs the model gateway, which this run bypasses: "
                f"{session.bypass}; remove the budget or set the engine's API key variable"
            )
        return
    _refuse_unpriced(session, context, limits)
    if session.budget is not None and (spent := session.budget.stop_if_spent()) is not None:
        raise BudgetSpent(f"the run's budget is spent before it started: {spent}")
    context.env = session.engine_env
    run.log.info("gateway", url=session.server.url, upstream=session.upstream, api=session.api)
    from holon_core.gateway.harden import harden_process

    for left in harden_process(context.engine.credential_env):
        run.log.warning("gateway", detail=left)


class BudgetSpent(HolonError):
    """A serve turn whose session has spent its budget: the engine is not started."""

    reason = "budget_exceeded"


def _open(
    run: RunState, context: RunContext, limits: Limits, shared: object
) -> GatewaySession | None:
    """A lease on the serve session's gateway, else a gateway of the run's own."""
    from holon_core.gateway.price_table import PriceTableError
    from holon_core.gateway.session import Gateway, GatewaySession, open_gateway

    evidence = run.evidence

    def sink(line: str) -> None:
        evidence.write_line("model-calls.ndjson", line)

    if isinstance(shared, Gateway):
        return shared.lease(context.env, sink, limits)
    if isinstance(shared, str):
        return GatewaySession(context.engine.model_api, dict(context.env), bypass=shared)
    try:
        return open_gateway(context.engine, context.env, sink, limits)
    except PriceTableError as exc:
        raise GatewaySettingInvalid(str(exc)) from exc


def budget_limits(context: RunContext, env: Mapping[str, str], *, one_shot: bool = True) -> Limits:
    """The spec's ``constraints.budget`` and ``HOLON_MAX_COST_USD``: the stricter applies.

    In a serve session ``HOLON_MAX_COST_USD`` (``serve --max-cost``) is the session's limit,
    kept by the session's gateway, not each turn's."""
    from holon_core.gateway.budget import Limits, parse_usd

    budget = context.spec.constraints.budget
    cost = budget.max_cost_usd if budget is not None else None
    raw = (env.get("HOLON_MAX_COST_USD") or "").strip() if one_shot else ""
    value = parse_usd(raw) if raw else None
    if value is not None:  # a bad value was refused by gateway_problem
        cost = value if cost is None else min(cost, value)
    return Limits(
        max_cost_usd=cost,
        max_tokens=budget.max_tokens if budget is not None else None,
        max_model_calls=budget.max_model_calls if budget is not None else None,
    )


def _named(limits: Limits) -> str:
    return ", ".join(f"{k} {v}" for k, v in limits.as_dict().items())


def _refuse_unpriced(session: GatewaySession, context: RunContext, limits: Limits) -> None:
    """A cost budget with a model nobody prices cannot be kept: refused before the start (a
    one-shot run's admission refused it already, with the same check; a serve turn's is
    found here)."""
    from holon_core.gateway.admit import unpriced_problem

    problem = unpriced_problem(session.api, context.model, limits.max_cost_usd, context.env)
    if problem is not None:
        session.close()
        raise problem


def _session(run: RunState) -> GatewaySession | None:
    session: GatewaySession | None = run.metadata.get(_KEY)
    return session


def abort_reason(run: RunState) -> str | None:
    """``budget_exceeded`` once the gateway refused a call over the budget (stops the engine)."""
    session = _session(run)
    if session is None or session.budget is None or session.budget.exceeded is None:
        return None
    return "budget_exceeded"


def overrule(run: RunState, decision: Decision) -> Decision:
    """A run the budget stopped is a ``budget_exceeded`` failure, however the engine ended."""
    session = _session(run)
    guard = session.budget if session is not None else None
    if guard is None or guard.exceeded is None:
        return decision
    return Decision(
        "failure",
        "budget_exceeded",
        f"the run reached its budget: {guard.message}; the engine was stopped and the work "
        "done so far is in diff.patch",
    )


def stop(run: RunState) -> None:
    session = _session(run)
    if session is not None:
        session.close()


def merge_into(run: RunState, meta: dict[str, Any]) -> None:
    """The gateway's ``gateway``, ``usage``, ``cost`` and ``budget`` over the engine's own."""
    session = _session(run)
    if session is None:
        return
    fields, warnings = session.manifest_fields(meta.get("usage"), meta.get("cost"))
    meta.update(fields)
    if warnings:
        meta.setdefault("warnings", []).extend(warnings)
