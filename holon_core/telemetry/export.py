"""Hand finished spans to the exporters the OpenTelemetry variables ask for.

The spans already have their ids and times (:mod:`.spans`), so they go to the exporter as
``ReadableSpan`` objects directly: no tracer, no global provider. The OTLP exporter reads its
endpoint, headers, timeout, compression and certificates from the standard variables itself.

The export holds the work up at most :data:`EXPORT_BUDGET` in all: a collector that does not
answer (the exporter's own timeout is 10 s by default, and it retries) costs a run one second
and a warning, and its spans are dropped. The export runs on a daemon thread that is left
behind when the budget is spent; the process exits without waiting for it.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Sequence

from opentelemetry.sdk.resources import SERVICE_NAME, Resource
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult
from opentelemetry.sdk.util.instrumentation import InstrumentationScope
from opentelemetry.trace import SpanContext, SpanKind, Status, StatusCode, TraceFlags

from holon_core._version import __version__
from holon_core.telemetry.setting import TraceContext
from holon_core.telemetry.spans import SpanData

SCOPE = InstrumentationScope("holon", __version__)
_KINDS = {"internal": SpanKind.INTERNAL, "client": SpanKind.CLIENT}


Built = list[tuple[str, SpanExporter]]


def build(names: Sequence[str]) -> Built:
    """The exporters by name; building the OTLP one imports its HTTP stack (``requests``)."""
    return [(name, _exporter(name)) for name in names]


#: Seconds the export may hold the run (or batch) up, all exporters together.
EXPORT_BUDGET = 1.0


def export(
    trace: TraceContext,
    spans: Sequence[SpanData],
    exporters: Built,
    budget: float = EXPORT_BUDGET,
) -> list[str]:
    """Send ``spans`` (all in ``trace``) to each exporter, then shut it down; the problems
    met, in words. Returns within ``budget`` seconds (the module docstring says how)."""
    resource = _resource()
    readable = [_readable(trace, span, resource) for span in spans]
    deadline = time.monotonic() + budget
    problems = []
    for name, exporter in exporters:
        done: list[SpanExportResult | Exception] = []
        worker = threading.Thread(
            target=_send, args=(exporter, readable, done), name=f"holon-{name}-export", daemon=True
        )
        worker.start()
        worker.join(max(0.0, deadline - time.monotonic()))
        if not done:
            problems.append(
                f"the {name} exporter did not deliver {len(readable)} spans within "
                f"{budget:g} s (a collector that does not answer?); they were dropped"
            )
        elif isinstance(done[0], Exception):  # an exporter bug must not cost the run its exit
            problems.append(f"the {name} exporter failed: {done[0]!r}")
        elif done[0] is not SpanExportResult.SUCCESS:
            problems.append(f"the {name} exporter could not deliver {len(readable)} spans")
    return problems


def _send(
    exporter: SpanExporter,
    spans: list[ReadableSpan],
    done: list[SpanExportResult | Exception],
) -> None:
    """One exporter's export, its result in ``done``, then its shutdown."""
    try:
        done.append(exporter.export(spans))
    except Exception as exc:
        done.append(exc)
    with contextlib.suppress(Exception):
        exporter.shutdown()


def _exporter(name: str) -> SpanExporter:
    if name == "console":
        from opentelemetry.sdk.trace.export import ConsoleSpanExporter

        return ConsoleSpanExporter(out=sys.stderr)  # stdout may be a caller's data
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    return OTLPSpanExporter()


def _resource() -> Resource:
    """The SDK's resource (``OTEL_SERVICE_NAME``, ``OTEL_RESOURCE_ATTRIBUTES``); the service is
    ``holon`` unless those name one."""
    resource = Resource.create()
    if str(resource.attributes.get(SERVICE_NAME, "")).startswith("unknown_service"):
        resource = resource.merge(Resource({SERVICE_NAME: "holon"}))
    return resource


def _readable(trace: TraceContext, span: SpanData, resource: Resource) -> ReadableSpan:
    flags = TraceFlags(TraceFlags.SAMPLED if trace.sampled else TraceFlags.DEFAULT)
    context = SpanContext(trace.trace_id, span.span_id, is_remote=False, trace_flags=flags)
    parent = None
    if span.parent_id is not None:
        remote = span.parent_id == trace.parent_id
        parent = SpanContext(trace.trace_id, span.parent_id, is_remote=remote, trace_flags=flags)
    status = Status(StatusCode.ERROR, span.error) if span.error is not None else Status()
    return ReadableSpan(
        name=span.name,
        context=context,
        parent=parent,
        resource=resource,
        attributes=span.attributes,
        kind=_KINDS[span.kind],
        status=status,
        start_time=span.start_ns,
        end_time=span.end_ns,
        instrumentation_scope=SCOPE,
    )
