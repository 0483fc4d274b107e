"""Steps 7-8 of the run: the launch plan under the supervisor, its events into the evidence."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from holon_core.agent import (
    gateway_run,
    replay_cassette,
)
from holon_core.agent.runlog import RunLog
from holon_core.agent.state import (
    DEFAULT_SILENCE,
    DEFAULT_TIMEOUT,
    RunState,
)
from holon_core.engine.adapter import RunContext
from holon_core.engine.events import Event
from holon_core.process.supervisor import supervise

if TYPE_CHECKING:
    from holon_core.engine.adapter import EventParser, LaunchPlan


def execute(
    run: RunState,
    context: RunContext,
    plan: LaunchPlan,
    parser: EventParser,
    on_event: Callable[[Event], None] | None = None,
) -> None:
    """Steps 7-8: run the launch plan under the supervisor, streaming events into evidence."""
    ev = run.evidence
    run.report = parser.report
    run.check_cancel()
    wall, silence = _timeouts(run, context)

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
    _after_exit(run, parser, on_event)
    run.timeouts = (wall, silence)


def _timeouts(run: RunState, context: RunContext) -> tuple[float, float]:
    """Wall and silence limits. Both the spec's timeout and HOLON_TIMEOUT (e.g. ``holon run
    --timeout``) are limits: the stricter one applies."""
    env_limit = _env_seconds(run.env, "HOLON_TIMEOUT")
    limits = [t for t in (context.spec.constraints.timeout_seconds, env_limit) if t]
    wall = min(limits) if limits else DEFAULT_TIMEOUT
    return wall, _env_float(run.env, "HOLON_SILENCE_TIMEOUT", DEFAULT_SILENCE)


def _after_exit(
    run: RunState, parser: EventParser, on_event: Callable[[Event], None] | None
) -> None:
    """The parser's last word (events it could build only now), and what was left out."""
    ev, proc = run.evidence, run.process
    assert proc is not None
    if proc.output_dropped:
        run.metadata.setdefault("warnings", []).append(
            f"{proc.output_dropped} bytes the engine printed before it was stopped "
            "were not processed (left out of evidence/)"
        )
    run.report = parser.finish(proc.exit_code)
    for event in run.report.late_events:  # e.g. exit codes read from the engine's session log
        ev.event(event)
        if on_event is not None:
            on_event(event)
    if ev.events.warning is not None:
        run.metadata.setdefault("warnings", []).append(ev.events.warning)
    run.log.info("engine ended", ended_by=proc.ended_by, exit_code=proc.exit_code)


def _log_event(run: RunState, event: Event) -> None:
    if event.type == "tool_call":
        run.log.info("tool", tool=event.tool)
    elif event.type in ("retry", "error"):
        run.log.warning(event.type, detail=event.text or event.data)


def _warm_up(log: RunLog) -> None:
    """Imports needed only after the engine ends, done while it runs (see runlog.py)."""
    log.attach()
    import holon_core.record.manifest_writer  # noqa: F401


def _env_seconds(env: Mapping[str, str], name: str) -> float | None:
    value = _env_float(env, name, 0.0)
    return value or None


def _env_float(env: Mapping[str, str], name: str, default: float) -> float:
    try:
        value = float(env.get(name, default))
    except ValueError:
        return default
    return value if value > 0 else default
