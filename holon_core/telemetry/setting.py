"""Whether this process exports traces, and the W3C trace context it hands on.

Decided from the OpenTelemetry SDK's own variables, read here without importing any
OpenTelemetry module: a run without them must not pay for (or load) the SDK.

- ``OTEL_SDK_DISABLED=true`` or ``OTEL_TRACES_EXPORTER=none``: nothing, whatever else is set.
- ``OTEL_TRACES_EXPORTER``: ``otlp`` and ``console`` are understood (a list is fine).
- Else ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` or ``OTEL_EXPORTER_OTLP_ENDPOINT`` set: ``otlp``.

holon exports OTLP over HTTP (protobuf), the extra's exporter; the SDK reads the endpoint,
headers, timeout, compression and certificates from the same standard variables.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass

ENDPOINT_VARS = ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT")
#: Where the SDK's OTLP/HTTP exporter sends spans when no endpoint variable is set.
DEFAULT_ENDPOINT = "http://localhost:4318"
PROTOCOL_VARS = ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL")
#: The exporters holon can build from the ``holon-core[otel]`` extra.
KNOWN_EXPORTERS = ("otlp", "console")
INSTALL_HINT = "pip install 'holon-core[otel]'"
#: The W3C trace context variables an engine that traces reads (and holon passes on).
CONTEXT_VARS = ("TRACEPARENT", "TRACESTATE")

_TRACEPARENT = re.compile(r"^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$")


@dataclass(frozen=True)
class Wanted:
    """The exporters to build, and what was asked that holon cannot do (for a warning)."""

    exporters: tuple[str, ...]
    problems: tuple[str, ...] = ()


def wanted(env: Mapping[str, str]) -> Wanted:
    """What the OpenTelemetry variables in ``env`` ask for (no exporters: trace nothing)."""
    if env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return Wanted(())
    names = [n.strip().lower() for n in env.get("OTEL_TRACES_EXPORTER", "").split(",")]
    names = [n for n in names if n]
    if "none" in names:
        return Wanted(())
    problems = [
        f"OTEL_TRACES_EXPORTER={name} is not one holon exports to (use otlp or console)"
        for name in names
        if name not in KNOWN_EXPORTERS
    ]
    if not names and any(env.get(name, "").strip() for name in ENDPOINT_VARS):
        names = ["otlp"]
    exporters = tuple(n for n in dict.fromkeys(names) if n in KNOWN_EXPORTERS)
    protocol = next((env[n].strip() for n in PROTOCOL_VARS if env.get(n, "").strip()), "")
    if "otlp" in exporters and protocol not in ("", "http/protobuf"):
        problems.append(
            f"OTLP protocol {protocol!r} is not supported: holon exports http/protobuf "
            "(set OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf and the collector's HTTP endpoint, "
            "usually port 4318)"
        )
        exporters = tuple(n for n in exporters if n != "otlp")
    return Wanted(exporters, tuple(problems))


def collector(env: Mapping[str, str]) -> str | None:
    """The OTLP endpoint the spans go to (the traces one, else the general one, else the SDK's
    default on this host's loopback); None when nothing is exported over OTLP."""
    if "otlp" not in wanted(env).exporters:
        return None
    found = (env.get(name, "").strip() for name in ENDPOINT_VARS)
    return next((url for url in found if url), DEFAULT_ENDPOINT)


@dataclass(frozen=True)
class TraceContext:
    """The trace a process's top span belongs to, chosen before the work starts.

    ``span_id`` is the span this process will export at the end (a run's ``invoke_agent``,
    a batch's span); it is known up front so the engine (or a batch's cells) can be handed a
    ``TRACEPARENT`` naming it while the work runs. ``parent_id`` comes from a ``TRACEPARENT``
    this process was given (a batch, a CI system), so its spans join that trace.
    """

    trace_id: int
    span_id: int
    parent_id: int | None
    sampled: bool
    start_ns: int
    tracestate: str | None = None

    def traceparent(self) -> str:
        flags = "01" if self.sampled else "00"
        return f"00-{self.trace_id:032x}-{self.span_id:016x}-{flags}"

    def child_env(self) -> dict[str, str]:
        """The variables that make a child process's spans children of this one's top span."""
        env = {"TRACEPARENT": self.traceparent()}
        if self.tracestate:
            env["TRACESTATE"] = self.tracestate
        return env


def parse_traceparent(value: str | None) -> tuple[int, int, bool] | None:
    """(trace id, parent span id, sampled) of a W3C ``traceparent``; None when invalid."""
    match = _TRACEPARENT.match((value or "").strip())
    if match is None:
        return None
    version, trace, span, flags, rest = match.groups()
    if version == "ff" or (version == "00" and rest) or set(trace) == {"0"} or set(span) == {"0"}:
        return None
    return int(trace, 16), int(span, 16), bool(int(flags, 16) & 1)


def context_vars(traceparent: str | None, tracestate: str | None) -> dict[str, str]:
    """``TRACEPARENT``/``TRACESTATE`` from a request's W3C headers (serve: the turn joins the
    client's trace); nothing when ``traceparent`` is missing or invalid, as W3C says (the
    ``tracestate`` of an invalid parent is dropped with it)."""
    if parse_traceparent(traceparent) is None:
        return {}
    found = {"TRACEPARENT": (traceparent or "").strip()}
    if tracestate and tracestate.strip():
        found["TRACESTATE"] = tracestate.strip()
    return found


def new_context(env: Mapping[str, str], start_ns: int) -> TraceContext:
    """A fresh top span: in the trace of ``env``'s ``TRACEPARENT`` when it has a valid one."""
    parent = parse_traceparent(env.get("TRACEPARENT"))
    span_id = random_id(8)
    if parent is None:
        return TraceContext(random_id(16), span_id, None, True, start_ns)
    trace_id, parent_id, sampled = parent
    state = env.get("TRACESTATE", "").strip() or None
    return TraceContext(trace_id, span_id, parent_id, sampled, start_ns, state)


def random_id(size: int) -> int:
    while True:  # an all-zero id is invalid in W3C trace context
        value = int.from_bytes(os.urandom(size), "big")
        if value:
            return value
