"""The one-shot run: data flows one way through the pipeline of DESIGN.md §4.

paths -> spec -> adapter -> preflight -> baseline -> skills -> prompt -> launch+supervise
-> events -> artifacts -> outcome -> manifest.json -> exit code.

Every path, including bad input and cancellation, ends in :func:`_finish`, which writes a
schema-valid manifest whenever the output directory is writable.
"""

from __future__ import annotations

import contextlib
import secrets
import shutil
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from holon_core.agent import (
    gateway_run,
    record,
    record_cassette,
    replay_cassette,
    telemetry_run,
)
from holon_core.agent.admission import Admission, admit_engine, admit_skills
from holon_core.agent.evidence import Evidence
from holon_core.agent.interrupt import until_launch
from holon_core.agent.output_dir import (
    claim_output,
    foreign_files,
    mark_owned,
    refusal,
    release_space,
    replaced_problem,
    reserve_space,
    take_back_access,
)
from holon_core.agent.paths import AgentPaths, output_writable, overlap_problem
from holon_core.agent.prompt import compile_prompt
from holon_core.agent.runlog import RunLog
from holon_core.agent.secret_scan import scan_outputs, scan_patch
from holon_core.agent.skill_env import redact_passed, settle_skill_env
from holon_core.agent.state import (
    DEFAULT_SILENCE,
    DEFAULT_TIMEOUT,
    RunState,
    unchanged_preexisting,
)
from holon_core.agent.summary import ensure_summary
from holon_core.engine.adapter import RunContext
from holon_core.engine.capability import capability_warnings
from holon_core.engine.events import Event
from holon_core.errors import HolonError
from holon_core.process.supervisor import supervise
from holon_core.record.outcome import Decision, Signals, decide
from holon_core.skill.layers import describe
from holon_core.trajectory.write import write_trajectory
from holon_core.untrusted.files import is_no_space
from holon_core.untrusted.redact import Redactor, secret_values
from holon_core.workspace import (
    git_dir_change,
    nested_repositories,
    record_baseline,
    write_diff,
)

if TYPE_CHECKING:
    from holon_core.engine.adapter import EngineReport, EventParser, LaunchPlan
    from holon_core.engine.checks import Check
    from holon_core.hooks.manager import HolonPlugins
    from holon_core.models.spec import Spec


@dataclass
class AgentOptions:
    engine: str | None = None
    model: str | None = None
    skills: list[Path] = field(default_factory=list)
    # Serve mode (holon_core/serve/turn.py) sets the fields below; one-shot keeps the defaults.
    #: The engine's own session id to continue (``RunContext.resume_session``).
    resume_session: str | None = None
    #: A persistent engine home that outlives the run (``RunContext.home_root``).
    home_root: Path | None = None
    mode: Literal["run", "serve"] = "run"
    #: Plugins loaded once by a long-lived caller (else loaded for this run).
    plugins: HolonPlugins | None = None
    #: The turn's spec, built by the caller (else read from ``<input>/spec.yaml``).
    spec: Spec | None = None
    #: Text put before the task in the user prompt (earlier turns, for engines without resume).
    history: str = ""
    #: Added to the system prompt (an Open Responses request's ``instructions``).
    instructions: str = ""
    #: Called with every normalized event as it is recorded (serve streams them).
    on_event: Callable[[Event], None] | None = None
    #: Preflight a long-lived caller already ran: (binary, version, checks).
    preflight: tuple[Path | None, str | None, list[Check]] | None = None
    #: The serve session's model gateway, leased to each turn (``gateway/session.py``).
    gateway: object = None


@dataclass(frozen=True)
class TurnResult:
    """How one run ended: the decision (also in manifest.json) and the engine's report."""

    decision: Decision
    report: EngineReport

    @property
    def exit_code(self) -> int:
        return self.decision.exit_code


def run_agent(
    paths: AgentPaths, options: AgentOptions, env: Mapping[str, str], cancel: threading.Event
) -> int:
    """One-shot ``holon-agent``: one turn, its exit code (1 when the output dir is refused)."""
    result = run_turn(paths, options, env, cancel)
    return 1 if result is None else result.exit_code


def run_turn(
    paths: AgentPaths, options: AgentOptions, env: Mapping[str, str], cancel: threading.Event
) -> TurnResult | None:
    """Run one turn through the whole pipeline; None when the output dir was refused.

    One-shot mode and every serve turn call this same function.
    """
    started = time.monotonic()
    overlap = overlap_problem(paths)
    if overlap is not None:
        print(
            f"holon-agent: error: {overlap}\n"
            "holon-agent: fix: give --output a directory of its own (an empty one)",
            file=sys.stderr,
        )
        return None
    foreign = foreign_files(paths.output)
    if foreign:
        print(refusal(paths.output, foreign), file=sys.stderr)
        return None
    why = output_writable(paths.output)
    if why is not None:
        print(
            f"holon-agent: error: output directory is not writable: {why}\n"
            f"holon-agent: fix: pass a writable --output DIR or set HOLON_OUTPUT_DIR",
            file=sys.stderr,
        )
        return None
    redact = Redactor(secret_values(env))
    try:
        held, preexisting = claim_output(paths.output)
        evidence = Evidence(held, redact, started=started)
    except OSError as exc:
        print(
            f"holon-agent: error: cannot prepare the output dir {paths.output}: {exc}\n"
            "holon-agent: fix: pass a writable --output DIR on a filesystem with free space",
            file=sys.stderr,
        )
        return None
    run_id = f"{time.strftime('%Y%m%dT%H%M%S')}-{secrets.token_hex(3)}"
    log = RunLog(evidence, run=run_id, engine=options.engine or "?")
    run = RunState(
        paths, env, started, cancel, redact, evidence, log, held, preexisting=preexisting
    )
    if options.mode != "run":
        run.metadata["mode"] = options.mode
    telemetry_run.begin(run)  # OTel traces only when its variables ask (docs/telemetry.md)
    try:
        run.reserve = reserve_space(held)
        decision = _pipeline(run, options, run_id)
    except HolonError as exc:
        decision = Decision("failure", exc.reason, str(exc))
        run.log.error("run failed", reason=exc.reason, error=str(exc))
    except Exception as exc:  # a bug (or a full disk): still leave a record
        full = _disk_full(exc)
        if full is not None:
            decision = full
            run.log.error("run failed", reason=full.reason, error=str(exc))
        else:
            decision = Decision("failure", "internal_error", f"internal error: {exc!r}")
            run.log.error("internal error", traceback=traceback.format_exc())
    decision = _finish(run, decision)
    telemetry_run.finish(run)  # the run's spans, built from the record just written
    return TurnResult(decision, run.report)


def _disk_full(exc: BaseException) -> Decision | None:
    """The failure for a full disk (or quota), or None when ``exc`` is something else."""
    if not is_no_space(exc):
        return None
    return Decision(
        "failure",
        "disk_full",
        f"no space left for the run's files ({exc}); "
        "free space on the output dir's filesystem or give holon a larger one",
    )


def _pipeline(run: RunState, options: AgentOptions, run_id: str) -> Decision:
    def until_plan() -> tuple[RunContext, LaunchPlan, EventParser]:
        context = _prepare(run, options, run_id)
        assert run.plugins is not None
        replay_cassette.prepare(run, context)  # --cassette: read it; a dummy key if none
        # the engine's env: endpoint -> gateway, no real key
        gateway_run.start(run, context, options.gateway)
        telemetry_run.to_engine(run, context)  # TRACEPARENT: the run's invoke_agent span
        record_cassette.start(run, context)  # --record: a recorder under the gateway
        replay_cassette.start(run, context)  # --cassette: answers from it under the gateway
        run.evidence.phase("launch")
        return context, run.plugins.launch(context), run.plugins.event_parser(context)

    # Until the engine exists, a stop signal interrupts whatever blocks (agent/interrupt.py).
    context, plan, parser = until_launch(run.cancel, until_plan)
    _execute(run, context, plan, parser, options.on_event)
    return replay_cassette.overrule(run, gateway_run.overrule(run, _judge(run, context)))


def _prepare(run: RunState, options: AgentOptions, run_id: str) -> RunContext:
    """Steps 1-6: everything up to the launch; nothing here starts the engine.

    Every refusal comes from the admission (:mod:`holon_core.agent.admission`), the same
    checks ``holon-agent --probe`` makes, so a green probe is never followed by a run refused
    here.
    """
    ev, paths = run.evidence, run.paths
    ev.phase("load")
    found = admit_engine(
        paths,
        options.engine,
        run.env,
        plugins=options.plugins,
        spec=options.spec,
        preflight=options.preflight,
        on_phase=ev.phase,
    )
    run.plugins = found.plugins
    if found.document is not None:
        from holon_core.spec.load import build_spec

        run.spec = build_spec(found.document)
        for warning in found.document.warnings:
            run.log.warning("spec", detail=warning)
    else:
        run.spec = options.spec
    if found.engine is not None:
        run.engine = found.engine
        run.log.bind(engine=found.engine.name)
        run.redact = Redactor(secret_values(run.env, found.engine.credential_env))
        ev.redact = run.redact
    _refuse(found)
    spec, engine = run.spec, found.engine
    assert spec is not None and engine is not None and run.plugins is not None
    binary, version, checks = found.binary, found.version, found.preflight
    run.metadata["checks"] = [c.as_dict() for c in checks]
    run.check_cancel()

    ev.phase("baseline")
    run.run_dir = _make_run_dir(run, run_id)
    run.baseline = record_baseline(paths.workspace, run.run_dir / "baseline")
    run.check_cancel()

    ev.phase("skills")
    admit_skills(found, paths, run.env, options.skills, run.run_dir / "skill-archives")
    secrets = redact_passed(run, engine, found.needed.names)  # before a refusal's record
    _refuse(found)
    skills = found.skills
    for note in found.notes:
        run.log.info("skill precedence", detail=note)
    for skill in skills:
        run.log.info("skill", **describe(skill))
        for warning in skill.warnings:
            run.log.warning("skill", detail=warning)
            run.metadata.setdefault("warnings", []).append(warning)
    prompt = compile_prompt(spec, paths.input, paths.workspace, paths.output)
    if options.instructions:
        prompt.system = f"{prompt.system}\n\n{options.instructions}"
    if options.history:
        prompt.user = f"{options.history}\n\n{prompt.user}"
    model = options.model or run.env.get("HOLON_MODEL") or spec.engine.model
    context = RunContext(
        engine=engine,
        spec=spec,
        run_id=run_id,
        input_dir=paths.input,
        workspace=paths.workspace,
        output_dir=paths.output,
        state_dir=run.run_dir.parent,
        run_dir=run.run_dir,
        env=run.env,
        prompt=prompt,
        model=model,
        max_steps=spec.constraints.max_steps,
        binary=binary,
        engine_version=version,
        skills=skills,
        secrets=secrets,
        resume_session=options.resume_session,
        home_root=options.home_root,
    )
    run.context = context
    settle_skill_env(run, context, found.native, found.needed)
    for warning in capability_warnings(engine, context):
        run.log.warning("capability", detail=warning)
        run.metadata.setdefault("warnings", []).append(warning)
    context.home.mkdir(parents=True, exist_ok=True)
    context.tmp.mkdir(parents=True, exist_ok=True)
    staged = run.plugins.stage_skills(context, skills)
    run.metadata["_staged"] = staged
    return context


def _refuse(found: Admission) -> None:
    """End the run with the first refusal the admission met (the probe reports the same)."""
    if found.refusal is not None:
        raise found.refusal


def _execute(
    run: RunState,
    context: RunContext,
    plan: LaunchPlan,
    parser: EventParser,
    on_event: Callable[[Event], None] | None = None,
) -> None:
    """Steps 7-8: run the launch plan under the supervisor, streaming events into evidence."""
    ev, spec = run.evidence, context.spec
    run.report = parser.report
    run.check_cancel()
    # Both the spec's timeout and HOLON_TIMEOUT (e.g. `holon run --timeout`) are limits: the
    # stricter one applies.
    limits = [
        t for t in (spec.constraints.timeout_seconds, _env_seconds(run.env, "HOLON_TIMEOUT")) if t
    ]
    wall = min(limits) if limits else DEFAULT_TIMEOUT
    silence = _env_float(run.env, "HOLON_SILENCE_TIMEOUT", DEFAULT_SILENCE)

    def on_stdout(line: str) -> None:
        for event in parser.feed(line):
            ev.event(event)
            _log_event(run, event)
            if on_event is not None:
                on_event(event)

    def on_stderr(line: str) -> None:
        for event in parser.feed_stderr(line):
            ev.event(event)

    model = context.model or "default"
    run.log.info("engine started", argv0=Path(plan.argv[0]).name, model=model)
    warm_up = threading.Thread(target=_warm_up, args=(run.log,), name="holon-warm-up", daemon=True)
    run.process = supervise(
        plan,
        on_stdout=on_stdout,
        on_stderr=on_stderr,
        wall_timeout=wall,
        silence_timeout=silence,
        cancel=run.cancel,
        should_abort=lambda: (
            parser.report.abort_reason
            or gateway_run.abort_reason(run)
            or replay_cassette.abort_reason(run)
        ),
        on_start=lambda _pid: warm_up.start(),
        on_output=ev.output,
        spool_dir=str(run.run_dir) if run.run_dir is not None else None,
    )
    if run.process.output_dropped:
        run.metadata.setdefault("warnings", []).append(
            f"{run.process.output_dropped} bytes the engine printed before it was stopped "
            "were not processed (left out of evidence/)"
        )
    run.report = parser.finish(run.process.exit_code)
    for event in run.report.late_events:  # e.g. exit codes read from the engine's session log
        ev.event(event)
        if on_event is not None:
            on_event(event)
    if ev.events.warning is not None:
        run.metadata.setdefault("warnings", []).append(ev.events.warning)
    proc = run.process
    run.log.info("engine ended", ended_by=proc.ended_by, exit_code=proc.exit_code)
    run.timeouts = (wall, silence)


def _judge(run: RunState, context: RunContext) -> Decision:
    """Steps 9-10: artifacts, then the outcome rule."""
    ev, paths, spec, proc = run.evidence, run.paths, context.spec, run.process
    assert run.baseline is not None and proc is not None
    wall, silence = run.timeouts
    ev.phase("artifacts")
    _take_back(run)
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


def _finish(run: RunState, decision: Decision) -> Decision:
    """Summary and manifest, on every path; returns the final decision."""
    from holon_core.record.manifest_writer import (
        inventory,
        merge_skill_manifest,
        read_skill_manifest,
        settle_artifacts,
    )
    from holon_core.record.manifest_writer import write_manifest as write_manifest_file

    run.log.attach()
    ev = run.evidence
    decision = _guard_record(run, decision)
    gateway_run.stop(run)
    out = run.out.view
    try:
        ev.phase("manifest", outcome=decision.outcome, reason=decision.reason)
        duration = time.monotonic() - run.started
        spec = run.spec
        if spec is not None and run.context is not None:
            figures = record.figures(run, duration)
            own = ensure_summary(
                run.out,
                goal=spec.goal_text,
                decision=decision,
                final_text=run.report.final_text,
                figures=figures,
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
        merged = settle_artifacts(merged, out, record.declared_artifacts(run))
        decision = record_cassette.finish(run, decision, merged)  # --record DIR
        write_manifest_file(run.out, merged, run.redact)
    except Exception as exc:  # a bug or a full disk while recording: still leave a record
        run.log.error("manifest", traceback=traceback.format_exc())
        decision = _disk_full(exc) or Decision(
            "failure",
            "internal_error",
            f"holon could not assemble the full manifest ({exc!r}); "
            f"the run itself ended {decision.outcome} ({decision.reason})",
        )
        ev.close()
        fallback = record.minimal_manifest(run, decision, time.monotonic() - run.started)
        try:
            fallback["artifacts"] = inventory(out, exclude=unchanged_preexisting(run))
            write_manifest_file(run.out, fallback, run.redact)
        except OSError as again:
            print(f"holon-agent: error: could not write manifest.json: {again}", file=sys.stderr)
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


def _take_back(run: RunState) -> None:
    """Undo an engine's chmod of holon's dirs, saying so in the manifest's warnings."""
    notes = [f"the engine changed permissions: {n}" for n in run.evidence.restored]
    run.evidence.restored.clear()
    notes += take_back_access(run.out, run.evidence.held)
    if notes:
        run.metadata.setdefault("warnings", []).extend(notes)
        for note in notes:
            run.log.warning("output dir", detail=note)


def _guard_record(run: RunState, decision: Decision) -> Decision:
    """Make sure holon can write the record, and that it lands where the run says."""
    _take_back(run)
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
        full = _disk_full(lost)
        if full is not None and decision.outcome != "failure":
            return full
    return decision


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


def _log_event(run: RunState, event: Event) -> None:
    if event.type == "tool_call":
        run.log.info("tool", tool=event.tool)
    elif event.type in ("retry", "error"):
        run.log.warning(event.type, detail=event.text or event.data)


def _make_run_dir(run: RunState, run_id: str) -> Path:
    if run.paths.state is not None:
        run.paths.state.mkdir(parents=True, exist_ok=True)
        path = run.paths.state / f"run-{run_id}-{secrets.token_hex(4)}"
        path.mkdir()
        return path
    run.private_state = True
    return Path(tempfile.mkdtemp(prefix=f"holon-run-{run_id}-"))


def _cleanup(run: RunState) -> None:
    if run.run_dir is not None and run.env.get("HOLON_KEEP_RUN_DIR") != "1":
        shutil.rmtree(run.run_dir, ignore_errors=True)


def _warm_up(log: RunLog) -> None:
    """Imports needed only after the engine ends, done while it runs (see runlog.py)."""
    log.attach()
    import holon_core.record.manifest_writer  # noqa: F401  (builds the Manifest model)


def _env_seconds(env: Mapping[str, str], name: str) -> float | None:
    value = _env_float(env, name, 0.0)
    return value or None


def _env_float(env: Mapping[str, str], name: str, default: float) -> float:
    try:
        value = float(env.get(name, default))
    except ValueError:
        return default
    return value if value > 0 else default
