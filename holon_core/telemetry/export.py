"""Hand finished spans to the exporters the OpenTelemetry variables ask for.

The spans already have their ids and times (:mod:`.spans`), so they go to the exporter as
``ReadableSpan`` objects directly: no tracer, no global provider, no background thread; the
export is synchronous and done when this returns. The OTLP exporter reads its endpoint,
headers, timeout, compression and certificates from the standard variables itself.
"""

from __future__ import annotations

import sys
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


def export(trace: TraceContext, spans: Sequence[SpanData], exporters: Built) -> list[str]:
    """Send ``spans`` (all in ``trace``) to each exporter, then shut it down; the problems
    met, in words."""
    resource = _resource()
    readable = [_readable(trace, span, resource) for span in spans]
    problems = []
    for name, exporter in exporters:
        try:
            result = exporter.export(readable)
        except Exception as exc:  # an exporter bug must not cost the run its exit code
            problems.append(f"the {name} exporter failed: {exc!r}")
            continue
        finally:
            exporter.shutdown()
        if result is not SpanExportResult.SUCCESS:
            problems.append(f"the {name} exporter could not deliver {len(readable)} spans")
    return problems


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
