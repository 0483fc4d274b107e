"""Steps 9-10 of the run: the artifacts (diff.patch, secrets in them), then the outcome rule."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from holon_core.agent.output_dir import take_back_access
from holon_core.agent.secret_scan import scan_outputs, scan_patch
from holon_core.agent.state import (
    RunState,
    unchanged_preexisting,
)
from holon_core.engine.adapter import RunContext
from holon_core.record.outcome import Decision, Signals, decide
from holon_core.workspace import (
    git_dir_change,
    nested_repositories,
    write_diff,
)

if TYPE_CHECKING:
    pass


def judge(run: RunState, context: RunContext) -> Decision:
    """Steps 9-10: artifacts, then the outcome rule."""
    ev, paths, spec, proc = run.evidence, run.paths, context.spec, run.process
    assert run.baseline is not None and proc is not None
    wall, silence = run.timeouts
    ev.phase("artifacts")
    take_back(run)
    diff = write_diff(
        run.baseline, paths.output / "diff.patch", exclude=_holon_dirs_inside(run), into=run.out
    )
    run.metadata["changed"] = diff.changed
    run.metadata["files_changed"] = len(diff.files)
    nested = nested_repositories(run.baseline)
    notes = [git_dir_change(run.baseline)]
    if nested:
        notes.append(
            f"nested git repositories are recorded as commit pointers only, so changes inside "
            f"them are not in diff.patch: {', '.join(nested)}"
        )
    for warning in filter(None, notes):
        run.log.warning("workspace", detail=warning)
        run.metadata.setdefault("warnings", []).append(warning)
    secret_files = scan_patch(run.redact, diff.patch_path, paths.workspace, diff.binary_files)
    secret_files += scan_outputs(run.redact, run.out.view, _engine_outputs(run))
    if secret_files:
        run.metadata["secrets_in_changes"] = secret_files
    stale = unchanged_preexisting(run)
    missing = tuple(
        a.path
        for a in spec.output.artifacts
        if a.required
        and a.path not in ("manifest.json", "summary.md", "diff.patch")
        and (not (run.out.view / a.path).exists() or a.path in stale)
    )
    signals = Signals(
        report=run.report,
        exit_code=proc.exit_code,
        ended_by=proc.ended_by,
        abort_reason=proc.abort_reason,
        spawn_error=proc.spawn_error,
        missing_artifacts=missing,
        secret_files=tuple(secret_files),
        wall_timeout=wall,
        silence_timeout=silence,
    )
    return decide(signals)


def take_back(run: RunState) -> None:
    """Undo an engine's chmod of holon's dirs, saying so in the manifest's warnings."""
    notes = [f"the engine changed permissions: {n}" for n in run.evidence.restored]
    run.evidence.restored.clear()
    notes += take_back_access(run.out, run.evidence.held)
    if notes:
        run.metadata.setdefault("warnings", []).extend(notes)
        for note in notes:
            run.log.warning("output dir", detail=note)


def _engine_outputs(run: RunState) -> list[str]:
    """What the engine (or a skill) wrote into the output dir; holon's own files excluded."""
    from holon_core.record.manifest_writer import inventory

    stale = unchanged_preexisting(run)
    owned = {"manifest.json", "diff.patch"}
    return [
        rel
        for rel in inventory(run.out.view, exclude=stale)
        if rel not in owned and not rel.startswith("evidence/")
    ]


def _holon_dirs_inside(run: RunState) -> list[str]:
    """The output and state dirs when they lie inside the workspace: holon's, not changes."""
    inside = []
    for path in (run.paths.output, run.run_dir.parent if run.run_dir else None):
        if path is not None:
            with contextlib.suppress(ValueError):
                rel = path.resolve().relative_to(run.paths.workspace.resolve())
                if rel.parts:
                    inside.append(rel.as_posix())
    return inside
