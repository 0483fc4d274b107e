"""Writes ``evidence/trajectory.json`` at the end of a run (called once from its finish).

Reads back the evidence files the run just closed, through the held ``evidence/``
descriptor and never following a link (the engine could have planted one at a name), and
writes the trajectory the way every evidence file is written: redacted, atomically. A
trajectory that cannot be made costs a warning in the manifest, never the record.
"""

from __future__ import annotations

import time
import traceback
from typing import TYPE_CHECKING, Any

from holon_core.trajectory.atif import build_trajectory
from holon_core.untrusted.json_files import read_ndjson

if TYPE_CHECKING:
    from holon_core.agent.evidence import Evidence
    from holon_core.engine.adapter import RunContext

TRAJECTORY = "trajectory.json"
#: The most of an evidence file read back (events.ndjson is capped at 16 MiB, phases aside).
_READ_LIMIT = 64 * 1024 * 1024


def write_trajectory(
    evidence: Evidence, manifest: dict[str, Any], context: RunContext | None
) -> None:
    """Write the run's ATIF trajectory; a failure is added to the manifest's warnings."""
    prompt = None if context is None else context.prompt
    try:
        started_at = time.time() - (time.monotonic() - evidence.started)
        document = build_trajectory(
            events=_ndjson(evidence, "events.ndjson"),
            calls=_ndjson(evidence, "model-calls.ndjson"),
            manifest=manifest,
            prompt=None if prompt is None else (prompt.system, prompt.user),
            started_at=started_at,
        )
        evidence.write_json(TRAJECTORY, document)
    except Exception as exc:  # a bug here must not cost the run its manifest
        traceback.print_exc()
        warning = f"evidence/{TRAJECTORY} could not be written: {exc!r}"
        manifest.setdefault("metadata", {}).setdefault("warnings", []).append(warning)


def _ndjson(evidence: Evidence, name: str) -> list[dict[str, Any]]:
    """The JSON objects of an evidence file; a damaged line is skipped."""
    objects, _ = read_ndjson(name, _READ_LIMIT, dir_fd=evidence.held.fd)
    return objects
