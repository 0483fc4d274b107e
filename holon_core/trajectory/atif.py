"""The ATIF document of one run, from its events, its model calls and its manifest data.

A pure function of what the run recorded, so a trajectory can be made again from a run's
output dir. The conversation starts with holon's compiled prompt (the ``system`` and
``user`` steps the engine was given), then the engine's steps (:mod:`.steps`). The outcome,
reason and error go into ``notes`` and ``extra`` (ATIF has no field for them), and a run
that did not succeed ends with a ``system`` step saying why (so a viewer shows it); a run
that ended before anything was said has that step alone (ATIF wants at least one).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from holon_core.trajectory import ATIF_VERSION
from holon_core.trajectory.metrics import attach_call_metrics, final_metrics
from holon_core.trajectory.steps import event_steps
from holon_core.untrusted.json_files import obj


def build_trajectory(
    *,
    events: Iterable[dict[str, Any]],
    calls: list[dict[str, Any]],
    manifest: dict[str, Any],
    prompt: tuple[str, str] | None,
    started_at: float | None,
) -> dict[str, Any]:
    """The ATIF trajectory. ``prompt`` is (system, user); ``started_at`` the run's epoch."""
    meta = obj(manifest.get("metadata"))

    def clock(offset: float) -> str | None:
        if started_at is None or not isinstance(offset, int | float):
            return None
        moment = datetime.fromtimestamp(started_at + offset, UTC)
        return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")

    steps: list[dict[str, Any]] = []
    if prompt is not None:
        system, user = prompt
        if system:
            steps.append({"source": "system", "message": system, "timestamp": clock(0.0)})
        steps.append({"source": "user", "message": user, "timestamp": clock(0.0)})
    engine_steps = event_steps(events, clock)
    engine = obj(meta.get("engine"))
    model = engine.get("model") if isinstance(engine.get("model"), str) else None
    per_step = attach_call_metrics(engine_steps, calls, model)
    steps += engine_steps
    ending = _ending(manifest, meta)
    if manifest.get("outcome") != "success" or not steps:
        steps.append({"source": "system", "message": f"holon: {ending}"})
    for number, step in enumerate(steps, start=1):
        step["step_id"] = number
        if step.get("timestamp") is None:
            step.pop("timestamp", None)
    document: dict[str, Any] = {
        "schema_version": ATIF_VERSION,
        "agent": _agent(meta),
        "steps": steps,
        "notes": f"holon run {ending}",
        "final_metrics": final_metrics(meta, len(steps)),
        "extra": _extra(manifest, meta, per_step),
    }
    if isinstance(meta.get("session_id"), str):
        document["session_id"] = meta["session_id"]
    return document


def _agent(meta: dict[str, Any]) -> dict[str, Any]:
    engine = obj(meta.get("engine"))
    agent: dict[str, Any] = {
        "name": str(engine.get("name") or "unknown"),
        "version": str(engine.get("version") or "unknown"),
    }
    if isinstance(engine.get("model"), str):
        agent["model_name"] = engine["model"]
    extra = {
        "harness": meta.get("agent", "holon-agent"),
        "holon_version": meta.get("holon_version"),
        "adapter": meta.get("adapter"),
    }
    agent["extra"] = {k: v for k, v in extra.items() if v is not None}
    return agent


def _ending(manifest: dict[str, Any], meta: dict[str, Any]) -> str:
    text = f"ended {manifest.get('outcome', 'failure')} ({meta.get('reason', 'unknown')})"
    detail = manifest.get("error") or meta.get("detail")
    return f"{text}: {detail}" if detail else text


def _extra(manifest: dict[str, Any], meta: dict[str, Any], per_step: bool) -> dict[str, Any]:
    extra = {
        "outcome": manifest.get("outcome"),
        "reason": meta.get("reason"),
        "error": manifest.get("error"),
        "duration": manifest.get("duration"),
        "files_changed": meta.get("files_changed"),
        "step_metrics": "gateway" if per_step else None,
    }
    return {k: v for k, v in extra.items() if v is not None}
