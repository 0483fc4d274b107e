"""A refused ``holon run`` still leaves a record where it was asked to: the failure
``manifest.json`` in ``--output DIR``.

CI reads the output dir whatever happened, so a run that never started (a bad
``--workspace``, a missing spec, a stop before the launch) writes the same minimal record
holon-agent writes, with ``metadata.agent`` ``holon run``. Only where holon may write: a
new, empty or holon-owned dir that is not the workspace; a dir holding the user's files is
left untouched, and without ``--output`` nothing is left behind.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from holon_core.agent.output_dir import claim_output, foreign_files
from holon_core.agent.paths import output_writable
from holon_core.record.manifest_writer import write_manifest
from holon_core.record.minimal import minimal_manifest
from holon_core.record.outcome import Decision
from holon_core.untrusted.redact import Redactor, secret_values


def record_refusal(
    output: Path, workspace: Path, decision: Decision, *, duration: float, env: Mapping[str, str]
) -> Path | None:
    """Write the failure manifest; its path, or None where holon may not write."""
    output = output.expanduser().absolute()
    if output.resolve() == workspace.expanduser().resolve() or foreign_files(output):
        return None
    if output_writable(output) is not None:
        return None
    held, _ = claim_output(output)
    try:
        data = minimal_manifest(decision, duration, agent="holon run")
        write_manifest(held, data, Redactor(secret_values(env)))
    finally:
        held.close()
    return output / "manifest.json"
