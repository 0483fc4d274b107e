"""The execution record's content: manifest.json's fields from what the run learned."""

from __future__ import annotations

import traceback
from typing import Any

from holon_core.agent import gateway_run
from holon_core.agent.state import RunState
from holon_core.engine.adapter import RunContext
from holon_core.process.supervisor import ProcessOutcome
from holon_core.record.minimal import minimal_manifest as minimal_fields
from holon_core.record.outcome import Decision
from holon_core.spec.durations import format_duration


def minimal_manifest(run: RunState, decision: Decision, duration: float) -> dict[str, Any]:
    """The fields every manifest has; the base of the full one and the fallback on a bug."""
    return minimal_fields(decision, duration, mode=run.metadata.get("mode", "run"))


def manifest_data(run: RunState, decision: Decision, duration: float) -> dict[str, Any]:
    manifest = minimal_manifest(run, decision, duration)
    meta: dict[str, Any] = manifest["metadata"]
    staged = run.metadata.pop("_staged", [])
    native = run.metadata.get("_native_skills", [])
    meta.update({k: v for k, v in run.metadata.items() if not k.startswith("_")})
    if run.engine is not None and run.plugins is not None:
        dist, version = run.plugins.adapter_version(run.engine.name)
        meta["adapter"] = {"name": run.engine.name, "distribution": dist, "version": version}
        ctx = run.context
        meta["engine"] = {
            "name": run.engine.name,
            "version": run.report.engine_version or (ctx.engine_version if ctx else None),
            "model": run.report.model or (ctx.model if ctx else None),
            "binary": str(ctx.binary) if ctx and ctx.binary else None,
        }
        meta["capabilities"] = run.engine.capabilities.as_dict()
    report = run.report
    meta["session_id"] = report.session_id
    meta["turns"] = report.turns
    if report.usage:
        meta["usage"] = report.usage
    meta["cost"] = {"usd": report.cost_usd, "source": report.cost_source}
    gateway_run.merge_into(run, meta)  # the gateway's figures, the engine's beside them
    if run.baseline is not None:
        meta["baseline"] = run.baseline.as_manifest()
    if run.context is not None:
        meta["skills"] = skill_records(run, staged, native)
        if run.plugins is not None:
            meta.update(plugin_metadata(run, run.context, meta))
    if run.process is not None:
        meta["process"] = resources(run.process)
        meta["tools"] = report.tool_summary()
    return manifest


def plugin_metadata(run: RunState, context: RunContext, meta: dict[str, Any]) -> dict[str, Any]:
    """Plugins' extra keys; a plugin that fails costs its keys and a warning, not the record."""
    assert run.plugins is not None
    try:
        extra = run.plugins.manifest_metadata(context, run.report)
    except Exception as exc:
        warning = f"a plugin failed to add manifest metadata: {exc!r}"
        run.log.error("manifest metadata", error=repr(exc), traceback=traceback.format_exc())
        meta.setdefault("warnings", []).append(warning)
        return {}
    return {k: v for k, v in extra.items() if k not in meta or meta[k] is None}


def skill_records(
    run: RunState, staged: list[Any], native: list[tuple[str, Any]]
) -> list[dict[str, Any]]:
    assert run.context is not None
    by_name = {s.name: s for s in staged}
    seen = run.report.skills_seen
    # Absent from what the stream showed: unseen only if the stream shows the listing.
    absent = False if run.report.skills_listing_visible else None
    records = []
    for skill in run.context.skills:
        stage = by_name.get(skill.name)
        records.append(
            {
                "name": skill.name,
                "version": skill.version,
                "source": skill.source,
                "origin": skill.origin or str(skill.path),
                "sha256": skill.sha256 or None,
                "path": str(skill.path),
                "staging": stage.staging if stage else "none",
                "seen_by_engine": None if seen is None else (skill.name in seen or absent),
            }
        )
    # The engine's own folders in the workspace: it discovers these itself (native_skills.py).
    for folder, skill in native:
        records.append(
            {
                "name": skill.name,
                "source": "workspace",
                "path": str(skill.path),
                "native_dir": folder,
                "staging": "native",
                "seen_by_engine": None if seen is None else (skill.name in seen or absent),
            }
        )
    return records


def resources(proc: ProcessOutcome) -> dict[str, Any]:
    return {
        "exit_code": proc.exit_code,
        "ended_by": proc.ended_by,
        "engine_seconds": round(proc.duration, 3),
        "peak_rss_mb": round(proc.peak_rss_bytes / 2**20, 1),
        "cpu_seconds": round(proc.cpu_seconds, 3),
        "leftovers_killed": proc.leftovers_killed,
    }


def figures(run: RunState, duration: float) -> dict[str, str]:
    figures = {"duration": format_duration(duration)}
    if run.engine is not None:
        figures["engine"] = run.engine.name
    if run.report.model:
        figures["model"] = run.report.model
    if run.report.turns is not None:
        figures["turns"] = str(run.report.turns)
    if "files_changed" in run.metadata:
        figures["files changed"] = str(run.metadata["files_changed"])
    sandbox = run.metadata.get("sandbox")
    if isinstance(sandbox, dict):
        figures["sandbox"] = _sandbox_figure(sandbox)
    return figures


def _sandbox_figure(sandbox: dict[str, Any]) -> str:
    """One line: the room, and what its proxy let through or denied (docs/sandbox.md)."""
    if sandbox.get("mode") != "on":
        return "off: the engine ran as the user, with the user's files and network"
    network = sandbox.get("network") or {}
    denied = network.get("denied_hosts") or []
    tried = sum(int(network.get(k) or 0) for k in ("allowed", "denied", "failed"))
    if not tried:
        return f"on ({sandbox.get('mechanism')}): no connection tried besides the model's"
    line = f"on ({sandbox.get('mechanism')}): {network.get('allowed', 0)} connections allowed"
    line += f", {network.get('denied', 0)} denied"
    if denied:
        line += f" ({', '.join(denied[:5])}{', ...' if len(denied) > 5 else ''})"
    return line + "; every attempt in evidence/network.ndjson"


def declared_artifacts(run: RunState) -> list[tuple[str, tuple[str, ...]]]:
    """``(skill, artifacts)`` its front matter declares, for every skill of the run."""
    if run.context is None:
        return []
    native = [skill for _, skill in run.metadata.get("_native_skills", [])]
    return [(s.name, s.artifacts) for s in (*run.context.skills, *native) if s.artifacts]
