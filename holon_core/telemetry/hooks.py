"""What a run, a serve turn and ``holon batch`` call: a few lines each, no OpenTelemetry import
unless the variables ask for traces.

``begin`` when the work starts (the trace and top span chosen, the SDK imported, or a warning
naming ``pip install 'holon-core[otel]'`` when it is missing; the work goes on either way),
``child_env`` for what the engine or a cell is started with, ``export_run`` /
``export_batch`` when the record is written.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from holon_core.telemetry.setting import INSTALL_HINT, TraceContext, new_context, wanted

if TYPE_CHECKING:
    from holon_core.telemetry.spans import SpanData


@dataclass(frozen=True)
class Tracing:
    """A process's trace: its context and the exporters its spans go to."""

    context: TraceContext
    exporters: tuple[str, ...]
    #: Who prints the warnings (``holon-agent``, ``holon batch``).
    who: str

    def child_env(self) -> dict[str, str]:
        """``TRACEPARENT`` (and ``TRACESTATE``) naming this process's top span."""
        return self.context.child_env()

    def export_run(self, output: Path, model_api: str | None) -> None:
        """The run's ``invoke_agent`` span and its children, built from the record in
        ``output`` once it is written."""
        from holon_core.telemetry.spans import run_spans

        self._export(lambda end: run_spans(self.context, output, end, model_api))

    def export_batch(
        self, job: str, outcomes: Sequence[str], costs: Sequence[float | None]
    ) -> None:
        from holon_core.telemetry.spans import batch_span

        self._export(lambda end: [batch_span(self.context, end, job, outcomes, costs)])

    def _export(self, build: Callable[[int], list[SpanData]]) -> None:
        from holon_core.telemetry.export import export

        if not self.context.sampled:  # the caller's trace says: not recorded
            return
        try:
            spans = build(time.time_ns())
            problems = export(self.context, spans, self.exporters)
        except Exception as exc:  # tracing must never cost the work its result
            problems = [f"could not build or export the spans: {exc!r}"]
        for problem in problems:
            print(f"{self.who}: warning: traces: {problem}", file=sys.stderr)


def begin(env: Mapping[str, str], who: str, start_ns: int | None = None) -> Tracing | None:
    """The process's trace when the OpenTelemetry variables in ``env`` ask for one; its top
    span starts at ``start_ns`` (default: now)."""
    asked = wanted(env)
    for problem in asked.problems:
        print(f"{who}: warning: traces: {problem}", file=sys.stderr)
    if not asked.exporters:
        return None
    start = time.time_ns() if start_ns is None else start_ns
    try:
        import holon_core.telemetry.export  # noqa: F401  (the SDK)

        if "otlp" in asked.exporters:
            import opentelemetry.exporter.otlp.proto.http.trace_exporter  # noqa: F401
    except ImportError as exc:
        print(
            f"{who}: warning: the OpenTelemetry variables ask for traces, but the OpenTelemetry "
            f"packages are not installed ({exc}); {INSTALL_HINT} to export them. "
            "Going on without traces.",
            file=sys.stderr,
        )
        return None
    return Tracing(new_context(env, start), asked.exporters, who)
