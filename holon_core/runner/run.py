"""``holon run``: one task on this machine, against a snapshot, judged before it is trusted.

spec -> run dir -> empty output -> input dir (read-only) -> fingerprint of the workspace ->
snapshot -> holon-agent (separate process, own HOME, contract env only) -> verification of the
workspace and the input -> validation -> optional apply to the original -> cleanup.
The user's workspace is only ever read, except by ``--apply`` after every check passed; a run
during which it (or the input) changed ends ``needs_human`` (``workspace_modified``).
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import IO, TYPE_CHECKING

from holon_core.errors import HolonError, InputError
from holon_core.report.finish import report_finished_run
from holon_core.runner.agent_stderr import explain_missing_manifest
from holon_core.runner.container import Container
from holon_core.runner.inputs import InputSources, build_input, lock_input, unlock_input
from holon_core.runner.launch import choose_engine, launch_agent, make_container
from holon_core.runner.layout import RunLayout, default_runs_dir, new_layout, register
from holon_core.runner.options import RunOptions
from holon_core.runner.output import prepare_output
from holon_core.runner.process import AgentExit
from holon_core.runner.progress import Progress
from holon_core.runner.report import RunAborted, RunResult
from holon_core.runner.signals import RunCancelled, StopSignals
from holon_core.runner.streams import write_safely
from holon_core.runner.task_spec import TaskSpec, load_task_spec
from holon_core.runner.verdict import judge
from holon_core.workspace import Snapshot, make_snapshot, remove_snapshot
from holon_core.workspace.verify import Fingerprint, changed_paths, take_fingerprint

if TYPE_CHECKING:
    from holon_core.models.spec import Spec

__all__ = ["RunOptions", "run_task"]


def run_task(
    options: RunOptions,
    env: Mapping[str, str] | None = None,
    stream: IO[str] | None = None,
    stops: StopSignals | None = None,
) -> RunResult:
    """Run one task; raise ``RunAborted`` when it ends before the agent starts.

    ``stops`` is the caller's installed signal handler (``holon run`` installs one for the
    whole command); without one, ``run_task`` installs its own for its duration.
    """
    if stops is None:
        with StopSignals().installed() as own:
            return run_task(options, env, stream, own)
    env = os.environ if env is None else env
    stream = sys.stderr if stream is None else stream
    warnings: list[str] = []
    layout: RunLayout | None = None
    try:
        task = _load_task(options, stream)
        warnings = task.warnings
        workspace = options.workspace.expanduser().resolve()
        if not workspace.is_dir():
            raise InputError(
                f"workspace {workspace} is not a directory",
                hint="pass --workspace DIR (default .)",
            )
        output = options.output.expanduser().absolute() if options.output else None
        layout = new_layout(options.runs_dir or default_runs_dir(env), output, workspace)
        result = RunResult(layout.run_id, layout.root, workspace, layout.output)
        result.warnings = list(warnings)
        return _run(options, env, stream, stops, task=task, layout=layout, result=result)
    except (HolonError, OSError, RunCancelled) as exc:
        if stops.holding:
            raise
        kept = layout is not None and options.keep_snapshot and layout.root.exists()
        if layout is not None and not kept:  # a refused run leaves nothing behind
            layout.discard()
        raise _aborted(exc, warnings, layout.root if kept and layout else None) from exc
    except BaseException:
        if layout is not None and not stops.holding:  # after launch the record is kept
            layout.discard()
        raise
    finally:
        if layout is not None:
            layout.close()


def _load_task(options: RunOptions, stream: IO[str]) -> TaskSpec:
    """The spec (written from ``--goal`` when there is none), its warnings said."""
    task = load_task_spec(
        options.spec,
        options.goal,
        engine=options.engine,
        model=options.model,
        timeout=options.timeout,
    )
    for warning in task.warnings:
        write_safely(stream, f"holon run: warning: {warning}\n")
    return task


def _aborted(exc: BaseException, warnings: list[str], run_dir: Path | None) -> RunAborted:
    if isinstance(exc, RunCancelled):
        return RunAborted(
            str(exc), reason="cancelled", warnings=warnings, cancelled=True, run_dir=run_dir
        )
    if isinstance(exc, HolonError):
        return RunAborted(str(exc), reason=exc.reason, warnings=warnings, run_dir=run_dir)
    return RunAborted(f"{exc}", reason="invalid_input", warnings=warnings, run_dir=run_dir)


def _run(
    options: RunOptions,
    env: Mapping[str, str],
    stream: IO[str],
    stops: StopSignals,
    *,
    task: TaskSpec,
    layout: RunLayout,
    result: RunResult,
) -> RunResult:
    """Everything after the run dir exists; before launch, errors propagate to ``run_task``."""
    spec = task.spec
    started = time.monotonic()
    skills, inputs, original, snapshot = _stage(options, env, task, layout, result)
    register(layout, layout.snapshot.name)
    try:
        result.snapshot = {"path": str(snapshot.path), "kind": snapshot.kind, "kept": False}
        engine_vars, container = _engine_and_container(
            options, env, layout, result, snapshot=snapshot, skills=skills, spec=spec
        )
        progress = Progress(stream, tty=_isatty(stream), enabled=options.progress)
        layout.seal()
        stops.hold()  # from here on the agent owns the stop: it is forwarded, not raised
        try:
            exited = launch_agent(
                options,
                env,
                layout,
                skills=skills,
                engine_vars=engine_vars,
                progress=progress,
                cancelled=lambda: stops.received is not None,
                container=container,
            )
        finally:
            layout.unseal()
    except BaseException:
        if not options.keep_snapshot:
            _remove_snapshot(layout, snapshot)
        raise
    # The agent has exited and been reaped: nothing touches the snapshot any more.
    result.duration_seconds = time.monotonic() - started
    keep_state = env.get("HOLON_KEEP_RUN_DIR") == "1"
    try:
        _conclude(
            result,
            exited,
            spec=spec,
            layout=layout,
            env=env,
            fingerprints=(original, inputs),
            apply=options.apply and stops.received is None,
        )
    finally:
        _cleanup(layout, snapshot, keep=options.keep_snapshot, keep_state=keep_state)
    stopped = stops.received is not None
    return _record(result, layout, options, stopped=stopped, keep_state=keep_state, started=started)


def _record(
    result: RunResult,
    layout: RunLayout,
    options: RunOptions,
    *,
    stopped: bool,
    keep_state: bool,
    started: float,
) -> RunResult:
    """The run's record (run.json) and report, written last."""
    if options.apply and stopped and result.applied is None:
        result.applied, result.apply_error = False, "a stop signal arrived; not applied"
    result.snapshot["kept"] = options.keep_snapshot
    result.state_dir = layout.state if keep_state or options.keep_snapshot else None
    result.duration_seconds = time.monotonic() - started
    result.report = report_finished_run(result) if options.report else None
    layout.write_record(result.to_json())
    return result


def _engine_and_container(
    options: RunOptions,
    env: Mapping[str, str],
    layout: RunLayout,
    result: RunResult,
    *,
    snapshot: Snapshot,
    skills: list[Path],
    spec: Spec,
) -> tuple[tuple[str, ...], Container | None]:
    """The engine the agent will pick (into ``result``), the variables it passes, the container."""
    result.engine, engine_vars = choose_engine(
        options.engine, env, spec, skills=skills, input_dir=layout.input, snap=snapshot.path
    )
    container = make_container(
        options,
        layout,
        engine=result.engine,
        engine_vars=engine_vars,
        env=env,
        snapshot=snapshot,
    )
    return engine_vars, container


def _stage(
    options: RunOptions,
    env: Mapping[str, str],
    task: TaskSpec,
    layout: RunLayout,
    result: RunResult,
) -> tuple[list[Path], Fingerprint, Fingerprint, Snapshot]:
    """The empty output, the read-only input, the original's fingerprint and the snapshot;
    returns the skills, both fingerprints and the snapshot. A failure removes the output."""
    made = prepare_output(layout.output, result.workspace)
    try:
        sources = InputSources(
            task.path,
            options.context,
            options.system_prompt,
            options.user_prompt,
            options.skills,
            spec_text=task.text,
        )
        skills = build_input(sources, task.spec, layout.input, env)
        inputs = lock_input(layout.input)
        original = take_fingerprint(result.workspace, [layout.output, layout.root])
        snapshot = make_snapshot(result.workspace, layout.snapshot)
    except BaseException:
        _discard_output(made)
        raise
    return skills, inputs, original, snapshot


def _conclude(
    result: RunResult,
    exited: AgentExit,
    *,
    spec: Spec,
    layout: RunLayout,
    env: Mapping[str, str],
    fingerprints: tuple[Fingerprint, Fingerprint],
    apply: bool,
) -> None:
    """The verdict after the agent exited; a failure to validate is itself recorded."""
    original, inputs = fingerprints
    try:
        modified = _verify(original, inputs, layout.input)
        judge(result, spec, exited, apply, modified)
        if result.reason == "missing_manifest":
            explain_missing_manifest(result, layout.agent_log("stderr"), env)
    except (HolonError, OSError) as exc:  # the record is still written, and says why
        result.outcome, result.reason, result.exit_code = "failure", "runner_error", 1
        result.valid, result.error = False, f"cannot validate the result: {exc}"


def _discard_output(made: list[Path]) -> None:
    """A run refused before launch removes the output dirs it created: before the launch they
    hold nothing but holon's marker."""
    if made and not made[0].is_symlink():
        shutil.rmtree(made[0], ignore_errors=True)


def _verify(original: Fingerprint, inputs: Fingerprint, input_dir: Path) -> list[str]:
    """What changed in the original workspace and in the input dir during the run."""
    try:
        changes = [f"workspace: {change}" for change in changed_paths(original)]
        changes += [f"input: {change}" for change in changed_paths(inputs)]
    finally:
        unlock_input(input_dir)
    return changes


def _remove_snapshot(layout: RunLayout, snapshot: Snapshot) -> None:
    """Through the held run dir: a link or a foreign dir the engine put there is not followed."""
    if layout.held is None:
        remove_snapshot(snapshot)
    else:
        layout.remove_scratch(snapshot.path)


def _isatty(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (OSError, ValueError):
        return False


def _cleanup(layout: RunLayout, snapshot: Snapshot, *, keep: bool, keep_state: bool) -> None:
    """Remove the scratch dirs; ``HOLON_KEEP_RUN_DIR=1`` keeps ``state/`` (the agent's run dir,
    with the engine's home), which the agent itself keeps for debugging under that knob."""
    if keep:
        return
    _remove_snapshot(layout, snapshot)
    for path in layout.scratch():
        if path in (layout.snapshot, layout.state if keep_state else None):
            continue
        layout.remove_scratch(path)
