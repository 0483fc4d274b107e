"""What a run, a serve turn and ``holon batch`` call: a few lines each, no OpenTelemetry import
unless the variables ask for traces.

``begin`` when the work starts (the trace and top span chosen; a warning naming
``pip install 'holon-core[otel]'`` when the packages are missing; the work goes on either
way), ``child_env`` for what the engine or a cell is started with, ``warm_up`` while the
engine runs (the SDK's import, about 100 ms of CPU, kept off the path to the engine's start),
``export_run`` / ``export_batch`` when the record is written.
"""

from __future__ import annotations

import importlib.util
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from holon_core.telemetry.setting import INSTALL_HINT, TraceContext, new_context, wanted

if TYPE_CHECKING:
    from holon_core.telemetry.export import Built
    from holon_core.telemetry.spans import SpanData

#: What the exporters need, by module (found without importing them).
_NEEDED = {
    "otlp": ("opentelemetry.sdk", "opentelemetry.exporter.otlp.proto.http"),
    "console": ("opentelemetry.sdk",),
}


@dataclass
class Tracing:
    """A process's trace: its context and the exporters its spans go to."""

    context: TraceContext
    exporters: tuple[str, ...]
    #: Who prints the warnings (``holon-agent``, ``holon batch``).
    who: str
    _warm: threading.Thread | None = field(default=None, repr=False)
    _built: Built | None = field(default=None, repr=False)

    def child_env(self) -> dict[str, str]:
        """``TRACEPARENT`` (and ``TRACESTATE``) naming this process's top span."""
        return self.context.child_env()

    def warm_up(self) -> None:
        """Import the SDK and build the exporters in the background (the engine is running
        meanwhile)."""
        if self._warm is None:
            self._warm = threading.Thread(target=self._build, name="holon-otel", daemon=True)
            self._warm.start()

    def _build(self) -> None:
        import contextlib

        with contextlib.suppress(Exception):  # an error shows again when the spans are sent
            import holon_core.telemetry.spans  # noqa: F401
            from holon_core.telemetry.export import build

            self._built = build(self.exporters)

    def export_run(self, output: Path, model_api: str | None) -> None:
        """The run's ``invoke_agent`` span and its children, built from the record in
        ``output`` once it is written."""
        self._export(lambda end: _run_spans(self.context, output, end, model_api))

    def export_batch(
        self, job: str, outcomes: Sequence[str], costs: Sequence[float | None]
    ) -> None:
        self._export(lambda end: _batch_spans(self.context, end, job, outcomes, costs))

    def _export(self, build: Callable[[int], list[SpanData]]) -> None:
        if not self.context.sampled:  # the caller's trace says: not recorded
            return
        end = time.time_ns()
        if self._warm is not None:
            self._warm.join()
        try:
            from holon_core.telemetry.export import build as build_exporters
            from holon_core.telemetry.export import export

            exporters = self._built or build_exporters(self.exporters)
            problems = export(self.context, build(end), exporters)
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
    missing = _missing(asked.exporters)
    if missing:
        print(
            f"{who}: warning: the OpenTelemetry variables ask for traces, but the OpenTelemetry "
            f"packages are not installed ({', '.join(missing)}); {INSTALL_HINT} to export "
            "them. Going on without traces.",
            file=sys.stderr,
        )
        return None
    return Tracing(new_context(env, start), asked.exporters, who)


def _missing(exporters: Sequence[str]) -> list[str]:
    """The modules the exporters need that cannot be found (nothing is imported but their
    namespace packages)."""
    missing = []
    for name in dict.fromkeys(m for e in exporters for m in _NEEDED[e]):
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            missing.append(name)
    return missing


def _run_spans(
    context: TraceContext, output: Path, end: int, model_api: str | None
) -> list[SpanData]:
    from holon_core.telemetry.spans import run_spans

    return run_spans(context, output, end, model_api)


def _batch_spans(
    context: TraceContext,
    end: int,
    job: str,
    outcomes: Sequence[str],
    costs: Sequence[float | None],
) -> list[SpanData]:
    from holon_core.telemetry.spans import batch_span

    return [batch_span(context, end, job, outcomes, costs)]
