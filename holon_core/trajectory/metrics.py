"""ATIF metrics: per step from the gateway's call records, for the run from the manifest.

The gateway (``evidence/model-calls.ndjson``) records each model call with its tokens and
cost, which is what ATIF's per-step ``metrics`` mean. Steps are inferred from events
(:mod:`.steps`), calls are counted on the wire; the two are matched one to one only when
their numbers agree (an engine's side calls, e.g. a title or a quota check, make them
differ: then the calls to the run's own model alone are tried), else no step gets metrics
and only the totals are given. The totals come from the
manifest's ``metadata.usage`` and ``metadata.cost``: the gateway's figures when it ran, else
what the engine reported (``final_metrics.extra.source`` says which). Token counts follow
the gateway's meaning, which is ATIF's: prompt tokens include the cached ones.
"""

from __future__ import annotations

from typing import Any

from holon_core.untrusted.json_files import integer, number, obj


def answered_calls(calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The model calls that produced a response (failed and retried ones are not steps)."""
    return [
        c
        for c in calls
        if c.get("kind") == "model"
        and isinstance(c.get("status"), int)
        and c["status"] < 400
        and not c.get("error")
        and isinstance(c.get("usage"), dict)
    ]


def call_metrics(call: dict[str, Any]) -> dict[str, Any]:
    """One model call's record as an ATIF step's ``metrics``."""
    usage = call["usage"]
    metrics: dict[str, Any] = {
        "prompt_tokens": integer(usage.get("input_tokens")),
        "completion_tokens": integer(usage.get("output_tokens")),
        "cached_tokens": integer(usage.get("cache_read_tokens")),
    }
    if isinstance(call.get("cost_usd"), int | float):
        metrics["cost_usd"] = float(call["cost_usd"])
    extra = {
        "cache_write_tokens": integer(usage.get("cache_write_tokens")),
        "latency_ms": call.get("latency_ms"),
        "time": call.get("time"),
    }
    metrics["extra"] = {k: v for k, v in extra.items() if v is not None}
    return {k: v for k, v in metrics.items() if v is not None}


def attach_call_metrics(
    steps: list[dict[str, Any]], calls: list[dict[str, Any]], model: str | None = None
) -> bool:
    """Give each agent step its model call's metrics when steps and calls match one to one.

    When they do not, the calls to the run's ``model`` alone may (an engine's side calls,
    such as a title from a small model, are then left out of the steps).
    """
    agent = [s for s in steps if s["source"] == "agent"]
    answered = answered_calls(calls)
    if model is not None and len(agent) != len(answered):
        answered = [c for c in answered if c.get("model") == model]
    if not agent or len(agent) != len(answered):
        return False
    for step, call in zip(agent, answered, strict=True):
        step["metrics"] = call_metrics(call)
        step["llm_call_count"] = 1
        if isinstance(call.get("model"), str):
            step["model_name"] = call["model"]
    return True


def final_metrics(meta: dict[str, Any], total_steps: int) -> dict[str, Any]:
    """``final_metrics`` from the manifest's usage and cost (absent figures stay absent)."""
    usage, cost = obj(meta.get("usage")), obj(meta.get("cost"))
    out: dict[str, Any] = {
        "total_prompt_tokens": integer(usage.get("input_tokens")),
        "total_completion_tokens": integer(usage.get("output_tokens")),
        "total_cached_tokens": integer(usage.get("cache_read_tokens")),
        "total_cost_usd": number(cost.get("usd")),
        "total_steps": total_steps,
    }
    extra = {
        "source": usage.get("source") or ("engine" if usage else None),
        "cost_source": cost.get("source"),
        "model_calls": integer(usage.get("model_calls")),
        "cache_write_tokens": integer(usage.get("cache_write_tokens")),
    }
    out["extra"] = {k: v for k, v in extra.items() if v is not None}
    return {k: v for k, v in out.items() if v not in (None, {})}
