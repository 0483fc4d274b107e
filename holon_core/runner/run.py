"""``holon run``: one task on this machine, against a snapshot, judged before it is trusted.

spec -> run dir -> empty output -> input dir -> snapshot -> holon-agent (separate process,
own HOME, contract env only) -> validation -> optional apply to the original -> cleanup.
The user's workspace is only ever read, except by ``--apply`` after every check passed.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from holon_core.agent.select import select_engine
from holon_core.errors import HolonError, InputError
from holon_core.models.spec import Spec
from holon_core.plugins import load_plugins
from holon_core.runner.agent_env import agent_command, agent_env
from holon_core.runner.inputs import InputSources, build_input
from holon_core.runner.layout import RunLayout, default_runs_dir, new_layout
from holon_core.runner.output import prepare_output
from holon_core.runner.process import AgentExit, run_agent_process
from holon_core.runner.progress import EventTail, Progress
from holon_core.runner.report import RunResult
from holon_core.runner.validate import Validation, apply_patch, validate_output
from holon_core.spec_loader import load_spec
from holon_core.workspace import Snapshot, make_snapshot, remove_snapshot


@dataclass
class RunOptions:
    spec: Path
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
    progress: bool = True


def run_task(
    options: RunOptions, env: Mapping[str, str] | None = None, stream: IO[str] | None = None
) -> RunResult:
    env = os.environ if env is None else env
    stream = sys.stderr if stream is None else stream
    spec_path = options.spec.expanduser().absolute()
    spec, _warnings = load_spec(spec_path)
    workspace = options.workspace.expanduser().resolve()
    if not workspace.is_dir():
        raise InputError(
            f"workspace {workspace} is not a directory", hint="pass --workspace DIR (default .)"
        )
    output = options.output.expanduser().absolute() if options.output else None
    layout = new_layout(options.runs_dir or default_runs_dir(env), output)
    result = RunResult(layout.run_id, layout.root, workspace, layout.output)
    snapshot: Snapshot | None = None
    launched = False
    started = time.monotonic()
    try:
        prepare_output(layout.output, workspace)
        sources = InputSources(
            spec_path, options.context, options.system_prompt, options.user_prompt, options.skills
        )
        skills = build_input(sources, spec, layout.input)
        snapshot = make_snapshot(workspace, layout.snapshot)
        result.snapshot = {"path": str(snapshot.path), "kind": snapshot.kind, "kept": False}
        result.engine, engine_vars = _engine(options.engine, env, spec)
        progress = Progress(stream, tty=stream.isatty(), enabled=options.progress)
        launched = True
        exited = _launch(
            options, env, layout, skills=skills, engine_vars=engine_vars, progress=progress
        )
        result.duration_seconds = time.monotonic() - started
        _judge(result, spec, exited, options.apply)
    except BaseException:
        if not launched:  # nothing worth keeping: a user --output lives outside the run dir
            shutil.rmtree(layout.root, ignore_errors=True)
        raise
    finally:
        _cleanup(layout, snapshot, keep=options.keep_snapshot)
        if snapshot is not None:
            result.snapshot["kept"] = options.keep_snapshot
    result.duration_seconds = time.monotonic() - started
    layout.record.write_text(result.to_json(), encoding="utf-8")
    return result


def _engine(
    flag: str | None, env: Mapping[str, str], spec: Spec
) -> tuple[str | None, tuple[str, ...]]:
    """The engine the agent will pick, and the variables its adapter names.

    Failure to choose is left to the agent, which records it in a manifest.
    """
    try:
        adapter = select_engine(load_plugins(env), flag, env, spec)
    except HolonError:
        return flag, ()
    return adapter.name, (*adapter.credential_env, *adapter.passthrough_env)


def _launch(
    options: RunOptions,
    env: Mapping[str, str],
    layout: RunLayout,
    *,
    skills: list[Path],
    engine_vars: tuple[str, ...],
    progress: Progress,
) -> AgentExit:
    argv = agent_command(env)
    argv += ["--input", str(layout.input), "--workspace", str(layout.snapshot)]
    argv += ["--output", str(layout.output), "--state", str(layout.state)]
    if options.engine:
        argv += ["--engine", options.engine]
    if options.model:
        argv += ["--model", options.model]
    for skill in skills:
        argv += ["--skill", str(skill)]
    extra = {"HOLON_TIMEOUT": f"{options.timeout:g}"} if options.timeout else {}
    child_env = agent_env(
        env, home=layout.home, tmp=layout.tmp, engine_vars=engine_vars, extra=extra
    )
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
        )
    finally:
        progress.finish()
    return exited


def _judge(result: RunResult, spec: Spec, exited: AgentExit, apply: bool) -> None:
    result.agent_exit_code = exited.exit_code
    result.interrupted, result.timed_out = exited.interrupted, exited.timed_out
    check = validate_output(result.output_dir, spec, result.workspace, exited.exit_code)
    result.valid, result.problems, result.warnings = check.ok, check.problems, check.warnings
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
        code = exited.exit_code
        result.exit_code = code if code in (0, 1, 2) else 1
    else:
        result.outcome, result.reason = "failure", check.problems[0].code
        result.error = "; ".join(p.message for p in check.problems)
        result.exit_code = 1
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


def _cleanup(layout: RunLayout, snapshot: Snapshot | None, *, keep: bool) -> None:
    if keep:
        return
    if snapshot is not None:
        remove_snapshot(snapshot)
    for path in layout.scratch():
        if path != layout.snapshot and path.exists():
            shutil.rmtree(path, ignore_errors=True)
