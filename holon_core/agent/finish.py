"""The end of every run: summary and manifest.json, on every path, written where the run says.

Bad input, a crash, a full disk or a cancel all end here, which writes a schema-valid
manifest whenever the output directory is writable.
"""

from __future__ import annotations

import contextlib
import shutil
import sys
import time
import traceback
from typing import TYPE_CHECKING, Any

from holon_core.agent import (
    gateway_run,
    record,
    record_cassette,
    sandbox_run,
)
from holon_core.agent.judge import take_back
from holon_core.agent.output_dir import (
    mark_owned,
    release_space,
    replaced_problem,
)
from holon_core.agent.state import (
    RunState,
    unchanged_preexisting,
)
from holon_core.agent.summary import ensure_summary
from holon_core.record.outcome import Decision
from holon_core.trajectory.write import write_trajectory
from holon_core.untrusted.files import is_no_space

if TYPE_CHECKING:
    pass


def finish(run: RunState, decision: Decision) -> Decision:
    """Summary and manifest, on every path; returns the final decision."""
    from holon_core.record.manifest_writer import write_manifest as write_manifest_file

    run.log.attach()
    ev = run.evidence
    decision = _guard_record(run, decision)
    gateway_run.stop(run)
    sandbox_run.stop(run)
    try:
        ev.phase("manifest", outcome=decision.outcome, reason=decision.reason)
        merged = _assemble(run, decision)
        decision = record_cassette.finish(run, decision, merged)  # --record DIR
        write_manifest_file(run.out, merged, run.redact)
    except Exception as exc:  # a bug or a full disk while recording: still leave a record
        decision = _fallback(run, decision, exc)
    finally:
        ev.close()
        _cleanup(run)
        run.evidence.held.close()
        run.out.close()
    print(
        f"holon-agent: {decision.outcome} ({decision.reason})"
        + (f": {run.redact(decision.error)}" if decision.error else ""),
        file=sys.stderr,
    )
    return decision


def _assemble(run: RunState, decision: Decision) -> dict[str, Any]:
    """summary.md, evidence/resources.json and trajectory.json, then the manifest's content
    with the artifacts inventory and what a skill wrote into its own manifest merged in."""
    from holon_core.record.manifest_writer import (
        inventory,
        merge_skill_manifest,
        read_skill_manifest,
        settle_artifacts,
    )

    ev, out = run.evidence, run.out.view
    duration = time.monotonic() - run.started
    spec = run.spec
    if spec is not None and run.context is not None:
        own = ensure_summary(
            run.out,
            goal=spec.goal_text,
            decision=decision,
            final_text=run.report.final_text,
            figures=record.figures(run, duration),
            written_before="summary.md" in run.preexisting,
            redact=run.redact,
        )
        run.metadata["summary_source"] = "holon" if own else "engine"
    if run.process is not None:
        ev.write_json("resources.json", record.resources(run.process))
    data = record.manifest_data(run, decision, duration)
    ev.close()
    write_trajectory(ev, data, run.context)  # evidence/trajectory.json (ATIF)
    data["artifacts"] = inventory(out, exclude=unchanged_preexisting(run))
    merged = merge_skill_manifest(data, read_skill_manifest(out))
    return settle_artifacts(merged, out, record.declared_artifacts(run))


def _fallback(run: RunState, decision: Decision, exc: Exception) -> Decision:
    """The full manifest failed: a minimal one, and the failure that says why."""
    from holon_core.record.manifest_writer import inventory
    from holon_core.record.manifest_writer import write_manifest as write_manifest_file

    run.log.error("manifest", traceback=traceback.format_exc())
    decision = disk_full(exc) or Decision(
        "failure",
        "internal_error",
        f"holon could not assemble the full manifest ({exc!r}); "
        f"the run itself ended {decision.outcome} ({decision.reason})",
    )
    run.evidence.close()
    fallback = record.minimal_manifest(run, decision, time.monotonic() - run.started)
    try:
        fallback["artifacts"] = inventory(run.out.view, exclude=unchanged_preexisting(run))
        write_manifest_file(run.out, fallback, run.redact)
    except OSError as again:
        print(f"holon-agent: error: could not write manifest.json: {again}", file=sys.stderr)
    return decision


def _guard_record(run: RunState, decision: Decision) -> Decision:
    """Make sure holon can write the record, and that it lands where the run says."""
    take_back(run)
    release_space(run.out, run.reserve)
    run.reserve = None
    with contextlib.suppress(OSError):
        mark_owned(run.out)  # the engine may have deleted it; the dir stays holon's
    problem = replaced_problem(run.out, run.evidence.held)
    if problem is not None:
        return Decision(
            "failure",
            "output_replaced",
            f"{problem}; the run itself ended {decision.outcome} ({decision.reason})",
        )
    lost = run.evidence.write_error
    if lost is not None:
        warning = f"evidence is incomplete: writing it failed ({lost})"
        run.metadata.setdefault("warnings", []).append(warning)
        full = disk_full(lost)
        if full is not None and decision.outcome != "failure":
            return full
    return decision


def disk_full(exc: BaseException) -> Decision | None:
    """The failure for a full disk (or quota), or None when ``exc`` is something else."""
    if not is_no_space(exc):
        return None
    return Decision(
        "failure",
        "disk_full",
        f"no space left for the run's files ({exc}); "
        "free space on the output dir's filesystem or give holon a larger one",
    )


def _cleanup(run: RunState) -> None:
    if run.run_dir is not None and run.env.get("HOLON_KEEP_RUN_DIR") != "1":
        shutil.rmtree(run.run_dir, ignore_errors=True)
