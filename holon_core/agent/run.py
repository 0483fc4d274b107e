"""The one-shot run: data flows one way through the pipeline of DESIGN.md §4.

paths -> spec -> adapter -> preflight -> baseline -> skills -> prompt -> launch+supervise
-> events -> artifacts -> outcome -> manifest.json -> exit code.

Each step has its module: :mod:`.prepare` (up to the launch), :mod:`.execute` (the engine
under the supervisor), :mod:`.judge` (artifacts, outcome) and :mod:`.finish`, where every
path, including bad input and cancellation, ends: it writes a schema-valid manifest whenever
the output directory is writable.
"""

from __future__ import annotations

import secrets
import sys
import threading
import time
import traceback
from collections.abc import Mapping
from typing import TYPE_CHECKING

from holon_core.agent import (
    gateway_run,
    record_cassette,
    replay_cassette,
    sandbox_run,
    telemetry_run,
)
from holon_core.agent.evidence import Evidence
from holon_core.agent.execute import execute
from holon_core.agent.finish import disk_full, finish
from holon_core.agent.interrupt import until_launch
from holon_core.agent.judge import judge
from holon_core.agent.options import AgentOptions, TurnResult
from holon_core.agent.output_dir import (
    claim_output,
    foreign_files,
    refusal,
    reserve_space,
)
from holon_core.agent.paths import AgentPaths, output_writable, overlap_problem
from holon_core.agent.prepare import prepare
from holon_core.agent.runlog import RunLog
from holon_core.agent.state import RunState
from holon_core.engine.adapter import RunContext
from holon_core.errors import HolonError
from holon_core.record.outcome import Decision
from holon_core.untrusted.redact import Redactor, secret_values

__all__ = ["AgentOptions", "TurnResult", "run_agent", "run_turn"]

if TYPE_CHECKING:
    from holon_core.engine.adapter import EventParser, LaunchPlan


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
    refused = _output_refused(paths)
    if refused is not None:
        print(refused, file=sys.stderr)
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
        full = disk_full(exc)
        if full is not None:
            decision = full
            run.log.error("run failed", reason=full.reason, error=str(exc))
        else:
            decision = Decision("failure", "internal_error", f"internal error: {exc!r}")
            run.log.error("internal error", traceback=traceback.format_exc())
    decision = finish(run, decision)
    telemetry_run.finish(run)  # the run's spans, built from the record just written
    return TurnResult(decision, run.report)


def _output_refused(paths: AgentPaths) -> str | None:
    """Why the output dir cannot take this run's record (said on stderr: no manifest then)."""
    overlap = overlap_problem(paths)
    if overlap is not None:
        return (
            f"holon-agent: error: {overlap}\n"
            "holon-agent: fix: give --output a directory of its own (an empty one)"
        )
    foreign = foreign_files(paths.output)
    if foreign:
        return refusal(paths.output, foreign)
    why = output_writable(paths.output)
    if why is not None:
        return (
            f"holon-agent: error: output directory is not writable: {why}\n"
            f"holon-agent: fix: pass a writable --output DIR or set HOLON_OUTPUT_DIR"
        )
    return None


def _pipeline(run: RunState, options: AgentOptions, run_id: str) -> Decision:
    def until_plan() -> tuple[RunContext, LaunchPlan, EventParser]:
        context = prepare(run, options, run_id)
        assert run.plugins is not None
        replay_cassette.prepare(run, context)  # --cassette: read it; a dummy key if none
        # the engine's env: endpoint -> gateway, no real key
        gateway_run.start(run, context, options.gateway)
        telemetry_run.to_engine(run, context)  # TRACEPARENT: the run's invoke_agent span
        record_cassette.start(run, context)  # --record: a recorder under the gateway
        replay_cassette.start(run, context)  # --cassette: answers from it under the gateway
        run.evidence.phase("launch")
        context.sandboxed = sandbox_run.wanted(run)
        plan = sandbox_run.enter(run, context, run.plugins.launch(context))  # the room
        return context, plan, run.plugins.event_parser(context)

    # Until the engine exists, a stop signal interrupts whatever blocks (agent/interrupt.py).
    context, plan, parser = until_launch(run.cancel, until_plan)
    execute(run, context, plan, parser, options.on_event)
    return replay_cassette.overrule(run, gateway_run.overrule(run, judge(run, context)))
