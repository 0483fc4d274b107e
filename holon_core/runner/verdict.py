"""The run's verdict from what the agent left: the output validated, the outcome taken from
the manifest, ``workspace_modified`` when the original changed, and ``--apply``."""

from __future__ import annotations

from pathlib import Path

from holon_core.models.spec import Spec
from holon_core.runner.process import AgentExit
from holon_core.runner.report import RunResult
from holon_core.runner.validate import Validation, apply_patch, validate_output
from holon_core.workspace.verify import describe


def judge(
    result: RunResult, spec: Spec, exited: AgentExit, apply: bool, modified: list[str]
) -> None:
    result.agent_exit_code = exited.exit_code
    result.interrupted, result.timed_out = exited.interrupted, exited.timed_out
    check = validate_output(result.output_dir, spec, result.workspace, exited.exit_code)
    result.valid, result.problems = check.ok, check.problems
    result.warnings += check.warnings  # after the spec's own warnings
    manifest = check.manifest or {}
    meta = manifest.get("metadata") if isinstance(manifest.get("metadata"), dict) else {}
    assert isinstance(meta, dict)
    files = meta.get("files_changed")
    result.files_changed = files if isinstance(files, int) else None
    cassette = meta.get("cassette")  # --record: where holon-agent wrote it
    if (
        isinstance(cassette, dict)
        and isinstance(cassette.get("path"), str)
        and "error" not in cassette
    ):
        result.cassette = Path(cassette["path"])
    if exited.spawn_error:
        result.warnings.insert(0, exited.spawn_error)
    if check.ok:
        result.outcome = str(manifest.get("outcome"))
        result.reason = meta.get("reason") if isinstance(meta.get("reason"), str) else None
        error = manifest.get("error")
        result.error = error if isinstance(error, str) else None
        detail = meta.get("detail")  # holon-agent's why for needs_human
        result.detail = detail if isinstance(detail, str) else None
        code = exited.exit_code
        result.exit_code = code if code in (0, 1, 2) else 1
    else:
        result.outcome, result.reason = "failure", check.problems[0].code
        result.error = "; ".join(p.message for p in check.problems)
        result.exit_code = 1
    if modified:
        result.outcome, result.reason, result.exit_code = "needs_human", "workspace_modified", 2
        result.error = None
        result.detail = (
            "the original workspace or the run's input changed during the run (the engine "
            f"reached outside its snapshot): {describe(modified)}"
        )
        if apply:
            result.applied = False
            result.apply_error = "the original workspace changed during the run; not applied"
        return
    if apply:
        _apply(result, check)


def _apply(result: RunResult, check: Validation) -> None:
    result.applied = False
    if not check.ok:
        result.apply_error = "validation failed; the workspace was left untouched"
    elif result.outcome != "success":
        result.apply_error = f"the outcome is {result.outcome}, not success"
    elif check.patch is None:
        result.apply_error = "the engine changed nothing"
    else:
        result.apply_error = apply_patch(check.patch, result.workspace)
        result.applied = result.apply_error is None
        if not result.applied:
            result.exit_code = 1
