"""The spans of a finished run, built from its record (GenAI semantic conventions).

- ``invoke_agent {engine}`` (INTERNAL): the whole run or serve turn; model, tokens, cost,
  outcome and reason from ``manifest.json``; ``error.type`` is the reason of a failure.
- ``chat {model}`` (CLIENT; ``generate_content`` for Google's API, as the conventions name
  it): one per model call of the gateway's ``evidence/model-calls.ndjson``, with its real start
  (end minus latency) and end; none when the run had no gateway.
- ``execute_tool {tool}`` (INTERNAL): one per tool call of ``evidence/events.ndjson``, from
  the call to its result (the engine's own timing as holon saw it on the stream).

Attribute names are the ``opentelemetry-semantic-conventions`` package's constants; holon's
own figures use the ``holon.`` namespace (``holon.cost.usd``, ``holon.outcome``, ...).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as gen_ai
from opentelemetry.semconv._incubating.attributes.gen_ai_attributes import (
    GenAiOperationNameValues as Operation,
)
from opentelemetry.semconv._incubating.attributes.gen_ai_attributes import (
    GenAiProviderNameValues as Provider,
)
from opentelemetry.semconv.attributes import error_attributes, server_attributes
from opentelemetry.semconv.attributes.http_attributes import HTTP_RESPONSE_STATUS_CODE

from holon_core.telemetry.record import read_record
from holon_core.telemetry.setting import TraceContext, random_id
from holon_core.untrusted.json_files import number, obj

Attributes = dict[str, str | int | float | bool]

#: The gateway's wire APIs (``EngineAdapter.model_api``) as GenAI providers and operations.
PROVIDERS = {
    "anthropic-messages": Provider.ANTHROPIC.value,
    "openai-responses": Provider.OPENAI.value,
    "google-generate-content": Provider.GCP_GEMINI.value,
}
OPERATIONS = {"google-generate-content": Operation.GENERATE_CONTENT.value}
TOOL_ERROR = "tool_error"


@dataclass
class SpanData:
    """One span to export, in plain values (times in ns since the epoch)."""

    name: str
    span_id: int
    parent_id: int | None
    start_ns: int
    end_ns: int
    kind: str = "internal"  # or "client"
    attributes: Attributes = field(default_factory=dict)
    #: Set for a span that ended in an error: the status description.
    error: str | None = None


def run_spans(
    trace: TraceContext, output: Path, end_ns: int, model_api: str | None
) -> list[SpanData]:
    """``invoke_agent`` with its ``chat`` and ``execute_tool`` children, from ``output``."""
    record = read_record(output)
    agent = agent_span(trace, record.manifest, end_ns, model_api)
    upstream = obj(obj(record.manifest.get("metadata")).get("gateway")).get("upstream")
    server = server_of(upstream if isinstance(upstream, str) else None)
    chats = [chat_span(agent, call, server) for call in record.model_calls]
    tools = tool_spans(agent, trace.start_ns, record.events)
    return [agent, *[c for c in chats if c is not None], *tools]


def agent_span(
    trace: TraceContext, manifest: Mapping[str, Any], end_ns: int, model_api: str | None
) -> SpanData:
    meta = obj(manifest.get("metadata"))
    engine = obj(meta.get("engine"))
    name = str(engine.get("name") or obj(meta.get("adapter")).get("name") or "holon")
    api = model_api or obj(meta.get("gateway")).get("api")
    attrs: Attributes = {
        gen_ai.GEN_AI_OPERATION_NAME: Operation.INVOKE_AGENT.value,
        gen_ai.GEN_AI_AGENT_NAME: name,
        gen_ai.GEN_AI_PROVIDER_NAME: PROVIDERS.get(str(api), name),
        "holon.outcome": str(manifest.get("outcome")),
        "holon.reason": str(meta.get("reason")),
        "holon.mode": str(meta.get("mode", "run")),
    }
    _put(attrs, gen_ai.GEN_AI_REQUEST_MODEL, engine.get("model"))
    _put(attrs, gen_ai.GEN_AI_CONVERSATION_ID, meta.get("session_id"))
    _put(attrs, "holon.engine.version", engine.get("version"))
    _put(attrs, "holon.files_changed", meta.get("files_changed"))
    _put(attrs, "holon.tools.calls", obj(meta.get("tools")).get("calls"))
    _put_usage(attrs, obj(meta.get("usage")))
    _put(attrs, "holon.cost.usd", obj(meta.get("cost")).get("usd"))
    failed = manifest.get("outcome") == "failure"
    if failed:
        attrs[error_attributes.ERROR_TYPE] = str(meta.get("reason") or "_OTHER")
    span = SpanData(
        f"{Operation.INVOKE_AGENT.value} {name}",
        trace.span_id,
        trace.parent_id,
        trace.start_ns,
        max(end_ns, trace.start_ns),
        attributes=attrs,
    )
    if failed:
        span.error = str(manifest.get("error") or meta.get("reason"))
    return span


def chat_span(
    parent: SpanData, call: Mapping[str, Any], server: Attributes | None = None
) -> SpanData | None:
    """A model call of the gateway's record; None for a line that is no model call."""
    end = _iso_ns(call.get("time"))
    if call.get("kind") != "model" or end is None:
        return None
    total_ms = number(obj(call.get("latency_ms")).get("total")) or 0.0
    api = str(call.get("api"))
    operation = OPERATIONS.get(api, Operation.CHAT.value)
    model = call.get("model")
    attrs: Attributes = {
        gen_ai.GEN_AI_OPERATION_NAME: operation,
        gen_ai.GEN_AI_PROVIDER_NAME: PROVIDERS.get(api, api),
        **(server or {}),
    }
    _put(attrs, gen_ai.GEN_AI_REQUEST_MODEL, model)
    _put_usage(attrs, obj(call.get("usage")))
    _put(attrs, "holon.cost.usd", call.get("cost_usd"))
    _put(attrs, HTTP_RESPONSE_STATUS_CODE, call.get("status"))
    _put(attrs, "holon.attempt", call.get("attempt"))
    status, error = call.get("status"), call.get("error")
    failed = bool(error) or not isinstance(status, int) or status >= 400
    if failed:
        attrs[error_attributes.ERROR_TYPE] = str(status) if isinstance(status, int) else "_OTHER"
    name = f"{operation} {model}" if model else operation
    start = max(end - int(total_ms * 1e6), parent.start_ns)
    span = SpanData(name, random_id(8), parent.span_id, start, end, "client", attrs)
    if failed:
        span.error = str(error or f"HTTP {status}")
    return span


def tool_spans(
    parent: SpanData, start_ns: int, events: Sequence[Mapping[str, Any]]
) -> list[SpanData]:
    """One span per tool call, from its ``tool_call`` event to its (last) ``tool_result``."""
    calls: dict[str, SpanData] = {}
    spans: list[SpanData] = []
    for event in events:
        at = start_ns + int((number(event.get("ts")) or 0.0) * 1e9)
        tool_id = event.get("tool_id")
        if event.get("type") == "tool_call":
            tool = str(event.get("tool") or "tool")
            attrs: Attributes = {
                gen_ai.GEN_AI_OPERATION_NAME: Operation.EXECUTE_TOOL.value,
                gen_ai.GEN_AI_TOOL_NAME: tool,
            }
            _put(attrs, gen_ai.GEN_AI_TOOL_CALL_ID, tool_id)
            span = SpanData(
                f"{Operation.EXECUTE_TOOL.value} {tool}",
                random_id(8),
                parent.span_id,
                at,
                at,
                attributes=attrs,
            )
            spans.append(span)
            if tool_id is not None:
                calls[str(tool_id)] = span
        elif event.get("type") == "tool_result" and str(tool_id) in calls:
            _settle(calls[str(tool_id)], event, at)
    for span in spans:  # a call without a result ran until the run ended
        if span.end_ns == span.start_ns and "holon.tool.status" not in span.attributes:
            span.end_ns = max(span.start_ns, parent.end_ns)
    return spans


def _settle(span: SpanData, result: Mapping[str, Any], at: int) -> None:
    """The result ends the span (an amended result, read later, only corrects the status)."""
    data = obj(result.get("data"))
    if not data.get("amended"):
        span.end_ns = max(at, span.start_ns)
    status = str(result.get("status") or "ok")
    span.attributes["holon.tool.status"] = status
    _put(span.attributes, "holon.tool.exit_code", data.get("exit_code"))
    if status == "error":
        span.attributes[error_attributes.ERROR_TYPE] = TOOL_ERROR
        code = data.get("exit_code")
        span.error = f"exit code {code}" if isinstance(code, int) else "the tool failed"
    else:
        span.attributes.pop(error_attributes.ERROR_TYPE, None)
        span.error = None


def batch_span(
    trace: TraceContext,
    end_ns: int,
    job: str,
    outcomes: Sequence[str],
    costs: Sequence[float | None],
) -> SpanData:
    """``invoke_workflow {job}``: a ``holon batch``, the parent of its cells' runs."""
    attrs: Attributes = {
        gen_ai.GEN_AI_OPERATION_NAME: Operation.INVOKE_WORKFLOW.value,
        gen_ai.GEN_AI_WORKFLOW_NAME: job,
        "holon.batch.cells": len(outcomes),
        "holon.batch.succeeded": sum(1 for o in outcomes if o == "success"),
        "holon.batch.failed": sum(1 for o in outcomes if o == "failure"),
        "holon.cost.usd": round(sum(c for c in costs if c is not None), 6),
    }
    name = f"{Operation.INVOKE_WORKFLOW.value} {job}"
    return SpanData(name, trace.span_id, trace.parent_id, trace.start_ns, end_ns, attributes=attrs)


def server_of(url: str | None) -> Attributes:
    """``server.address`` and ``server.port`` of an upstream URL."""
    from urllib.parse import urlsplit

    parts = urlsplit(url or "")
    if not parts.hostname:
        return {}
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return {server_attributes.SERVER_ADDRESS: parts.hostname, server_attributes.SERVER_PORT: port}


def _put_usage(attrs: Attributes, usage: Mapping[str, Any]) -> None:
    _put(attrs, gen_ai.GEN_AI_USAGE_INPUT_TOKENS, usage.get("input_tokens"))
    _put(attrs, gen_ai.GEN_AI_USAGE_OUTPUT_TOKENS, usage.get("output_tokens"))
    _put(attrs, gen_ai.GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS, usage.get("cache_read_tokens"))
    _put(attrs, gen_ai.GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS, usage.get("cache_write_tokens"))


def _put(attrs: Attributes, key: str, value: Any) -> None:
    """Set an attribute when the record has a plain value for it."""
    if isinstance(value, (str, bool, int, float)) and value != "":
        attrs[key] = value


def _iso_ns(value: Any) -> int | None:
    if not isinstance(value, str):
        return None
    try:
        stamp = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return int(stamp.timestamp() * 1e9)
