"""OpenTelemetry traces of holon's runs, following the GenAI semantic conventions.

Owns: deciding from the OpenTelemetry SDK's standard variables whether traces are wanted
(:mod:`.setting`, no OpenTelemetry import), the W3C trace context a run hands its engine
(``TRACEPARENT``), building the spans of a finished run or batch from its record
(:mod:`.spans`: ``invoke_agent`` per run, ``chat`` per model call of the gateway's
``evidence/model-calls.ndjson``, ``execute_tool`` per tool call of ``evidence/events.ndjson``)
and exporting them (:mod:`.export`). :mod:`.hooks` is what the run, serve and batch call.

Spans are built after the fact, with the start and end times the record holds, when the run
has ended: nothing runs on the engine's hot path, and a run's spans are exactly what its
record says. Without the variables nothing here imports an OpenTelemetry module; the
packages are the optional extra ``holon-core[otel]``.

The record is read as untrusted files (:mod:`.record`: no links followed, size caps).

May import: the standard library, :mod:`holon_core._version`, :mod:`holon_core.untrusted`;
OpenTelemetry only in :mod:`.spans` and :mod:`.export`, which :mod:`.hooks` imports once
traces are wanted.
Never imports the agent, serve or batch packages (they call in, with plain values).
"""
