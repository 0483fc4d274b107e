"""Render a scripted reply in each model API's wire format (engines.md section 3).

Bodies are built whole and sent with ``Content-Length``: all three clients accept a complete
SSE body at once, which keeps the server simple and the output deterministic.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from holon_conformance.provider.actions import Reply
from holon_conformance.provider.apis import ANTHROPIC_MESSAGES, GOOGLE_GENERATE_CONTENT

if TYPE_CHECKING:
    from holon_conformance.provider.conversation import Conversation

USAGE_IN = 100
USAGE_OUT = 20

_ERROR_NAMES = {
    400: ("invalid_request_error", "INVALID_ARGUMENT"),
    401: ("authentication_error", "UNAUTHENTICATED"),
    403: ("permission_error", "PERMISSION_DENIED"),
    404: ("not_found_error", "NOT_FOUND"),
    429: ("rate_limit_error", "RESOURCE_EXHAUSTED"),
    500: ("api_error", "INTERNAL"),
    503: ("overloaded_error", "UNAVAILABLE"),
    529: ("overloaded_error", "UNAVAILABLE"),
}


def _sse(event: str | None, data: dict[str, Any]) -> str:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(data, separators=(',', ':'))}\n\n"


def error_body(api: str | None, status: int, message: str) -> dict[str, Any]:
    anthropic_type, google_status = _ERROR_NAMES.get(status, ("api_error", "UNKNOWN"))
    if api == ANTHROPIC_MESSAGES:
        return {"type": "error", "error": {"type": anthropic_type, "message": message}}
    if api == GOOGLE_GENERATE_CONTENT:
        return {"error": {"code": status, "message": message, "status": google_status}}
    return {"error": {"message": message, "type": anthropic_type, "code": str(status)}}


# --- Anthropic Messages ------------------------------------------------------------------


def anthropic_message(reply: Reply, conv: Conversation, turn: int) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if reply.text:
        content.append({"type": "text", "text": reply.text})
    if reply.call:
        call_id = f"toolu_scripted_{turn:04d}"
        content.append(
            {"type": "tool_use", "id": call_id, "name": reply.call.name, "input": reply.call.args}
        )
    return {
        "id": f"msg_scripted_{turn:04d}",
        "type": "message",
        "role": "assistant",
        "model": conv.model,
        "content": content,
        "stop_reason": "tool_use" if reply.call else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": USAGE_IN, "output_tokens": USAGE_OUT},
    }


def anthropic_sse(message: dict[str, Any]) -> str:
    start = {**message, "content": [], "stop_reason": None}
    start["usage"] = {"input_tokens": USAGE_IN, "output_tokens": 1}
    parts = [_sse("message_start", {"type": "message_start", "message": start})]
    for index, block in enumerate(message["content"]):
        opened: dict[str, Any]
        if block["type"] == "text":
            opened = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            opened = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        parts.append(
            _sse(
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": opened},
            )
        )
        parts.append(
            _sse(
                "content_block_delta",
                {"type": "content_block_delta", "index": index, "delta": delta},
            )
        )
        parts.append(_sse("content_block_stop", {"type": "content_block_stop", "index": index}))
    stop = {"stop_reason": message["stop_reason"], "stop_sequence": None}
    parts.append(
        _sse(
            "message_delta",
            {"type": "message_delta", "delta": stop, "usage": {"output_tokens": USAGE_OUT}},
        )
    )
    parts.append(_sse("message_stop", {"type": "message_stop"}))
    return "".join(parts)


# --- OpenAI Responses ---------------------------------------------------------------------


def _responses_items(reply: Reply, turn: int) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    if reply.text:
        items.append(
            {
                "type": "message",
                "id": f"msg_scripted_{turn:04d}",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": reply.text, "annotations": []}],
            }
        )
    call = reply.call
    if call is None:
        return items
    call_id = f"call_scripted_{turn:04d}"
    base = {"id": f"fc_scripted_{turn:04d}", "call_id": call_id, "status": "completed"}
    if call.kind == "custom":
        items.append({**base, "type": "custom_tool_call", "name": call.name, "input": call.text})
    elif call.kind == "local_shell":
        items.append({**base, "type": "local_shell_call", "action": call.args})
    else:
        arguments = json.dumps(call.args)
        items.append({**base, "type": "function_call", "name": call.name, "arguments": arguments})
    return items


def responses_sse(reply: Reply, conv: Conversation, turn: int) -> str:
    response_id = f"resp_scripted_{turn:04d}"
    created = {
        "id": response_id,
        "object": "response",
        "status": "in_progress",
        "model": conv.model,
    }
    parts = [_sse("response.created", {"type": "response.created", "response": created})]
    items = _responses_items(reply, turn)
    for index, item in enumerate(items):
        parts.append(
            _sse(
                "response.output_item.added",
                {"type": "response.output_item.added", "output_index": index, "item": item},
            )
        )
        if item["type"] == "message":
            delta = {
                "type": "response.output_text.delta",
                "item_id": item["id"],
                "output_index": index,
                "content_index": 0,
                "delta": reply.text,
            }
            parts.append(_sse("response.output_text.delta", delta))
        parts.append(
            _sse(
                "response.output_item.done",
                {"type": "response.output_item.done", "output_index": index, "item": item},
            )
        )
    usage = {
        "input_tokens": USAGE_IN,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": USAGE_OUT,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": USAGE_IN + USAGE_OUT,
    }
    done = {**created, "status": "completed", "output": items, "usage": usage}
    parts.append(_sse("response.completed", {"type": "response.completed", "response": done}))
    return "".join(parts)


# --- Google generateContent ---------------------------------------------------------------


def generate_content_response(reply: Reply, conv: Conversation, turn: int) -> dict[str, Any]:
    parts: list[dict[str, Any]] = []
    if reply.text:
        parts.append({"text": reply.text})
    if reply.call:
        parts.append({"functionCall": {"name": reply.call.name, "args": reply.call.args}})
    return {
        "candidates": [
            {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": {
            "promptTokenCount": USAGE_IN,
            "candidatesTokenCount": USAGE_OUT,
            "totalTokenCount": USAGE_IN + USAGE_OUT,
        },
        "modelVersion": conv.model,
        "responseId": f"scripted-{turn:04d}",
    }


def generate_content_sse(response: dict[str, Any]) -> str:
    return f"data: {json.dumps(response, separators=(',', ':'))}\r\n\r\n"


def generate_content_text(text: str, conv: Conversation) -> dict[str, Any]:
    return generate_content_response(Reply(text=text), conv, 0)
