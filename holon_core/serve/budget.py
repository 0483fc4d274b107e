"""A serve turn's own budget: the request field ``holon.budget`` (docs/gateway.md).

Same fields as the spec's ``constraints.budget`` (``max_cost_usd``, ``max_tokens``,
``max_model_calls``), checked by the same rule; a turn's limits join the spec's (the
stricter of each applies) and the session's gateway keeps them, beside the session's budget.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from holon_core.models.spec import Budget, Spec
from holon_core.serve.errors import RequestError
from holon_core.spec.rules import BUDGET, Findings

LIMITS = ("max_cost_usd", "max_tokens", "max_model_calls")


def parse_budget(value: object) -> dict[str, Any] | None:
    """``holon.budget`` checked; RequestError (400) naming the field that is wrong."""
    if value is None:
        return None
    found = Findings()
    BUDGET(value, ("holon", "budget"), found)
    for loc in found.unknown:
        found.add(loc, f"is no budget field; use {', '.join(LIMITS)}")
    if found.problems:
        loc, message = found.problems[0]
        where = ".".join(str(part) for part in loc)
        raise RequestError(400, f"{where} {message}", param=where)
    assert isinstance(value, dict)
    return {k: v for k, v in value.items() if v is not None}


def with_budget(spec: Spec, budget: dict[str, Any]) -> Spec:
    """``spec`` with the turn's limits joined to its ``constraints.budget`` (stricter wins)."""
    current = spec.constraints.budget
    merged: dict[str, Any] = {}
    for name in LIMITS:
        values = [v for v in (getattr(current, name, None), budget.get(name)) if v is not None]
        merged[name] = min(values) if values else None
    constraints = dataclasses.replace(spec.constraints, budget=Budget.from_mapping(merged))
    return dataclasses.replace(spec, constraints=constraints)
