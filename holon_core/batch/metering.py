"""A job with a cost limit refuses, before any cell runs, engines whose model calls holon
cannot meter.

``holon batch --max-cost`` (each cell's budget) and ``limits.max_cost_usd`` (the job's) are
kept by the model gateway, which prices what it forwards. An engine it cannot meter (the
generic acp engine without ``HOLON_ACP_MODEL_API``, or any engine with ``HOLON_GATEWAY=off``)
would fail every cell with the same refusal, or leave the job's total unknown; one error
naming its cells and the fix is better. Engines that call no model at all (replay) spend
nothing and run.
"""

from __future__ import annotations

from collections.abc import Mapping

from holon_core.batch.cells import engine_cell_ids
from holon_core.batch.job import Job
from holon_core.errors import EngineNotFound, InputError
from holon_core.gateway.admit import unmetered
from holon_core.gateway.setting import gateway_setting
from holon_core.untrusted.quoting import name_list


def unmetered_refusal(job: Job, env: Mapping[str, str]) -> InputError | None:
    limits = []
    if (env.get("HOLON_MAX_COST_USD") or "").strip():
        limits.append(f"each cell's --max-cost ${env['HOLON_MAX_COST_USD'].strip()}")
    if job.data.limits.max_cost_usd is not None:
        limits.append(f"limits.max_cost_usd ${job.data.limits.max_cost_usd:g}")
    if not limits:
        return None
    from holon_core.hooks.manager import load_plugins

    plugins = load_plugins(env)
    try:
        gateway_on = gateway_setting(env)
    except ValueError:
        return None  # every cell's agent names the bad setting
    lines, fixes = [], []
    for name in job.data.matrix.engines:
        try:
            engine = plugins.get_engine(name)
        except EngineNotFound:
            continue  # its cells fail as unknown_engine, with the installed names
        if not unmetered(engine.model_api, gateway_on, calls_models=engine.calls_models):
            continue
        cells = engine_cell_ids(job, name)
        count = f"{len(cells)} cell" + ("s" if len(cells) != 1 else "")
        lines.append(f"engine {name} ({count}: {name_list(cells)})")
        fix = engine.metering_fix()
        fixes.append(f"for {name}: {fix}" if fix else f"drop {name} from matrix.engines")
    if not lines:
        return None
    why = "which cannot meter the model calls of"
    if not gateway_on:
        why, fixes = (
            "which is off (HOLON_GATEWAY), so nothing meters the model calls of",
            ["run with the gateway on (unset HOLON_GATEWAY)"],
        )
    return InputError(
        f"{' and '.join(limits)} is kept by the model gateway, {why} "
        f"{'; '.join(lines)}; no cell was started",
        hint="; ".join(fixes) + "; or remove the cost limit",
    )
