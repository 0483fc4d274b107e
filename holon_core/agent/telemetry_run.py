"""Where the run pipeline meets OpenTelemetry (:mod:`holon_core.telemetry`).

:func:`begin` when the run starts (nothing, and no OpenTelemetry import, without the
variables), :func:`to_engine` just before the launch (``TRACEPARENT`` naming the run's
``invoke_agent`` span in the engine's environment, so an engine that traces joins the
trace), :func:`finish` once the record is written: the spans are built from it, after the
fact, so the engine's hot path carries nothing. A serve turn is a run, so it gets the same.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from holon_core.agent.state import RunState
    from holon_core.engine.adapter import RunContext
    from holon_core.telemetry.hooks import Tracing

_KEY = "_tracing"


def begin(run: RunState) -> None:
    from holon_core.telemetry.setting import wanted

    if not wanted(run.env).exporters and not wanted(run.env).problems:
        return  # the common case: not even the hooks module is loaded
    from holon_core.telemetry.hooks import begin as begin_tracing

    start_ns = time.time_ns() - int((time.monotonic() - run.started) * 1e9)
    tracing = begin_tracing(run.env, "holon-agent", start_ns)
    if tracing is not None:
        run.metadata[_KEY] = tracing


def to_engine(run: RunState, context: RunContext) -> None:
    tracing: Tracing | None = run.metadata.get(_KEY)
    if tracing is not None:
        context.env = {**context.env, **tracing.child_env()}
        tracing.warm_up()  # the SDK's import, while the engine starts and runs


def finish(run: RunState) -> None:
    tracing: Tracing | None = run.metadata.get(_KEY)
    if tracing is not None:
        model_api = run.engine.model_api if run.engine is not None else None
        tracing.export_run(run.paths.output, model_api)
