"""The fields every ``manifest.json`` has, whoever writes it.

holon-agent builds its full record on these; ``holon run`` writes only these when it refuses a
run before any agent started (a bad ``--workspace``, a missing spec) and was given an output
dir. One builder, so the two records cannot drift apart.
"""

from __future__ import annotations

from typing import Any

from holon_core._version import __version__
from holon_core.record.outcome import Decision
from holon_core.spec.durations import format_duration


def minimal_manifest(
    decision: Decision, duration: float, *, agent: str = "holon-agent", mode: str = "run"
) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "agent": agent,
        "holon_version": __version__,
        "mode": mode,
        "reason": decision.reason,
    }
    if decision.error and decision.outcome != "failure":
        meta["detail"] = decision.error
    return {
        "status": "failed" if decision.outcome == "failure" else "completed",
        "outcome": decision.outcome,
        "duration": format_duration(duration),
        "artifacts": [],
        "metadata": meta,
        # error belongs to failures only; why a person must look goes in metadata.detail
        "error": decision.error if decision.outcome == "failure" else None,
    }
