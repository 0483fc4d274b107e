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
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from holon_core.agent.select import select_engine
from holon_core.errors import HolonError, InputError
from holon_core.hooks.manager import load_plugins
from holon_core.models.spec import Spec
from holon_core.report.finish import report_finished_run
from holon_core.runner.agent_env import agent_command, agent_env
from holon_core.runner.agent_stderr import explain_missing_manifest
from holon_core.runner.container import Container, ContainerOptions, prepare, runtime_env
from holon_core.runner.inputs import InputSources, build_input, lock_input, unlock_input
from holon_core.runner.layout import RunLayout, default_runs_dir, new_layout, register
from holon_core.runner.output import prepare_output
from holon_core.runner.pass_env import forwarded_names
from holon_core.runner.process import AgentExit, run_agent_process
from holon_core.runner.progress import EventTail, Progress
from holon_core.runner.report import RunAborted, RunResult
from holon_core.runner.signals import RunCancelled, StopSignals
from holon_core.runner.streams import write_safely
from holon_core.runner.task_spec import TaskSpec, load_task_spec
from holon_core.runner.validate import Validation, apply_patch, validate_output
from holon_core.workspace import Snapshot, make_snapshot, remove_snapshot
from holon_core.workspace.verify import Fingerprint, changed_paths, describe, take_fingerprint


@dataclass
class RunOptions:
    spec: Path | None = None  # None: the spec is written from ``goal`` (task_spec.py)
    workspace: Path = Path()
    output: Path | None = None
    runs_dir: Path | None = None
    engine: str | None = None
    model: str | None = None
    context: Path | None = None
    system_prompt: Path | None = None
    user_prompt: Path | None = None
    skills: list[Path] = field(default_factory=list)
    apply: bool = False
    keep_snapshot: bool = False
    timeout: float | None = None
    #: ``--max-cost``: the model gateway's cost limit (HOLON_MAX_COST_USD; docs/gateway.md).
    max_cost_usd: float | None = None
    #: ``--record DIR``: holon-agent writes the run's cassette there (docs/cassettes.md).
    record: Path | None = None
    progress: bool = True
    container: ContainerOptions | None = None  # run holon-agent in a container (container.py)
    serve: bool = False  # the one turn through `holon-agent serve --once` (serve/once.py)
    goal: str | None = None  # ``--goal``: the task's goal, with or without ``spec``
    report: bool = True  # report.html beside the record (holon_core/report); --no-report


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
        task = load_task_spec(
            options.spec,
            options.goal,
            engine=options.engine,
            model=options.model,
            timeout=options.timeout,
        )
        warnings = task.warnings
        for warning in warnings:
            write_safely(stream, f"holon run: warning: {warning}\n")
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
        return _run(
            options,
            env,
            stream,
            stops,
            task=task,
            layout=layout,
            result=result,
        )
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
        skills = build_input(sources, spec, layout.input, env)
        inputs = lock_input(layout.input)
        original = take_fingerprint(result.workspace, [layout.output, layout.root])
        snapshot = make_snapshot(result.workspace, layout.snapshot)
    except BaseException:
        _discard_output(made)
        raise
    register(layout, layout.snapshot.name)
    try:
        result.snapshot = {"path": str(snapshot.path), "kind": snapshot.kind, "kept": False}
        result.engine, engine_vars = _engine(
            options.engine, env, spec, skills=skills, input_dir=layout.input, snap=snapshot.path
        )
        container = _container(
            options,
            layout,
            engine=result.engine,
            engine_vars=engine_vars,
            env=env,
            snapshot=snapshot,
        )
        progress = Progress(stream, tty=_isatty(stream), enabled=options.progress)
        layout.seal()
        stops.hold()  # from here on the agent owns the stop: it is forwarded, not raised
        try:
            exited = _launch(
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
        modified = _verify(original, inputs, layout.input)
        _judge(result, spec, exited, options.apply and stops.received is None, modified)
        if result.reason == "missing_manifest":
            explain_missing_manifest(result, layout.agent_log("stderr"), env)
    except (HolonError, OSError) as exc:  # the record is still written, and says why
        result.outcome, result.reason, result.exit_code = "failure", "runner_error", 1
        result.valid, result.error = False, f"cannot validate the result: {exc}"
    finally:
        _cleanup(layout, snapshot, keep=options.keep_snapshot, keep_state=keep_state)
    if options.apply and stops.received is not None and result.applied is None:
        result.applied, result.apply_error = False, "a stop signal arrived; not applied"
    result.snapshot["kept"] = options.keep_snapshot
    result.state_dir = layout.state if keep_state or options.keep_snapshot else None
    result.duration_seconds = time.monotonic() - started
    result.report = report_finished_run(result) if options.report else None
    layout.write_record(result.to_json())
    return result


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


def _engine(
    flag: str | None,
    env: Mapping[str, str],
    spec: Spec,
    *,
    skills: list[Path],
    input_dir: Path,
    snap: Path,
) -> tuple[str | None, tuple[str, ...]]:
    """The engine the agent will pick, the variables its adapter names and the run passes.

    Failure to choose is left to the agent, which records it in a manifest.
    """
    try:
        adapter = select_engine(load_plugins(env), flag, env, spec)
    except HolonError:
        return flag, ()
    names = (*adapter.credential_env, *adapter.passthrough_env)
    if adapter.name == "replay":  # the replay adapter's own opt-in list (builtin/replay.py)
        passed = env.get("HOLON_REPLAY_PASS_ENV", "").split(",")
        names += tuple(name.strip() for name in passed if name.strip())
    names += forwarded_names(adapter, spec, env, skills=skills, input_dir=input_dir, workspace=snap)
    return adapter.name, names


def _launch(
    options: RunOptions,
    env: Mapping[str, str],
    layout: RunLayout,
    *,
    skills: list[Path],
    engine_vars: tuple[str, ...],
    progress: Progress,
    cancelled: Callable[[], bool],
    container: Container | None = None,
) -> AgentExit:
    argv = agent_command(env) if container is None else []
    if options.serve:
        argv += ["serve", "--once"]
    argv += ["--input", str(layout.input), "--workspace", str(layout.snapshot)]
    argv += ["--output", str(layout.output), "--state", str(layout.state)]
    if options.engine:
        argv += ["--engine", options.engine]
    if options.model:
        argv += ["--model", options.model]
    for skill in skills:
        argv += ["--skill", str(skill)]
    extra = {"HOLON_TIMEOUT": f"{options.timeout:g}"} if options.timeout else {}
    if options.max_cost_usd is not None:
        extra["HOLON_MAX_COST_USD"] = f"{options.max_cost_usd:g}"
    if options.record is not None:
        extra["HOLON_RECORD"] = str(options.record)
    child_env = agent_env(
        env, home=layout.home, tmp=layout.tmp, engine_vars=engine_vars, extra=extra
    )
    if container is not None:  # the runtime gets the user's environment; the agent gets less
        argv = container.command(layout, argv, child_env, engine_vars)
        child_env = runtime_env(env)
    tail = EventTail(layout.output / "evidence" / "events.ndjson")

    def on_tick(elapsed: float) -> None:
        for event in tail.read():
            progress.event(event, elapsed)
        progress.tick(elapsed)

    # The agent enforces the timeout itself; we only step in if it overruns by a margin.
    deadline = options.timeout + 60.0 if options.timeout else None
    try:
        exited = run_agent_process(
            argv,
            child_env,
            layout.root,
            (layout.agent_log("stdout"), layout.agent_log("stderr")),
            on_tick=on_tick,
            timeout=deadline,
            cancelled=cancelled,
        )
    finally:
        progress.finish()
        if container is not None:
            container.remove(env)
    return exited


def _container(
    options: RunOptions,
    layout: RunLayout,
    *,
    engine: str | None,
    engine_vars: tuple[str, ...],
    env: Mapping[str, str],
    snapshot: Snapshot,
) -> Container | None:
    if options.container is None:
        return None
    return prepare(
        options.container,
        run_id=layout.run_id,
        engine=engine,
        engine_vars=engine_vars,
        env=env,
        snapshot=snapshot,
    )


def _judge(
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
