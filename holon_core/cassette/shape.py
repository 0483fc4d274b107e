"""Where a model request stands in its conversation: the anchor replay matches on.

A global call counter breaks as soon as calls run concurrently or an engine retries, and a
hash of the whole body breaks on any drift. Instead each request is anchored on *what the
model said last and what answers it*: the conversation from the last assistant turn to the
end (its tool calls and the tool results the engine sends back), or, before the model said
anything, the user's opening messages. Replay serves recorded bytes, so the ids the model
minted come back identical in the next request and the anchor is stable; the rest of the
body (system prompt, tools, settings) is compared separately, as drift.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from holon_core.cassette.normalize import PathMap, normalize_body

#: Items of an OpenAI Responses ``input`` the model produced (its turn), not the client.
_RESPONSES_MODEL_ITEMS = frozenset(
    {"function_call", "custom_tool_call", "local_shell_call", "reasoning", "web_search_call"}
)


@dataclass(frozen=True)
class Shape:
    """One request as matching sees it."""

    kind: str
    method: str
    path: str
    #: How many turns the model already took in the conversation.
    turn: int
    #: Digest of the conversation's tail plus the request's model, kind and tool use.
    anchor: str
    #: The normalized body as ``path: value`` lines (multi-line strings split): diffs and
    #: similarity work on these.
    lines: tuple[str, ...]
    tail: tuple[str, ...]


def shape_of(
    api: str, kind: str, *, method: str, path: str, query: str, body: Any, paths: PathMap
) -> Shape:
    normal = normalize_body(body, paths) if body is not None else None
    path_norm = paths.apply(path)
    turns, tail = conversation_tail(api, normal)
    head = {
        "kind": kind,
        "method": method,
        "path": path_norm,
        "query": _query_without_keys(query),
        "model": normal.get("model") if isinstance(normal, dict) else None,
        "tools": bool(normal.get("tools")) if isinstance(normal, dict) else False,
        "turn": turns,
    }
    tail_lines = tuple(flatten(tail))
    digest = hashlib.sha256(
        json.dumps(head, sort_keys=True).encode() + b"\0" + "\n".join(tail_lines).encode()
    ).hexdigest()
    return Shape(kind, method, path_norm, turns, digest, tuple(flatten(normal)), tail_lines)


def conversation_tail(api: str, body: Any) -> tuple[int, Any]:
    """(turns the model took, the conversation from its last turn on) of a normalized body;
    the whole body when it holds no conversation this reader knows."""
    if not isinstance(body, dict):
        return 0, body
    if isinstance(body.get("messages"), list):  # Anthropic Messages, Chat Completions
        return _tail(body["messages"], lambda m: _role(m) == "assistant")
    if isinstance(body.get("contents"), list):  # Gemini generateContent
        return _tail(body["contents"], lambda c: _role(c) == "model")
    items = body.get("input")
    if isinstance(items, list):  # OpenAI Responses
        turns, tail = _tail(items, _responses_model_item)
        return turns, [body.get("previous_response_id"), tail]
    if isinstance(items, str):
        return 0, [body.get("previous_response_id"), items]
    return 0, body


def _role(entry: Any) -> Any:
    return entry.get("role") if isinstance(entry, dict) else None


def _responses_model_item(item: Any) -> bool:
    if not isinstance(item, dict):
        return False
    kind = item.get("type", "message")
    return kind in _RESPONSES_MODEL_ITEMS or (kind == "message" and item.get("role") == "assistant")


def _tail(entries: list[Any], by_model: Any) -> tuple[int, list[Any]]:
    """Count the model's turns (runs of consecutive model entries) and cut at the last."""
    turns, start, previous = 0, 0, False
    for index, entry in enumerate(entries):
        mine = bool(by_model(entry))
        if mine and not previous:
            turns, start = turns + 1, index
        previous = mine
    return turns, entries[start:]


def flatten(value: Any, where: str = "") -> list[str]:
    """A JSON value as ``path: value`` lines, each line of a multi-line string its own line
    (``path+ rest``), so a unified diff of two bodies shows the changed sentence."""
    if isinstance(value, dict):
        out: list[str] = []
        for key in sorted(value):
            out += flatten(value[key], f"{where}.{key}" if where else str(key))
        return out or [f"{where}: {{}}"]
    if isinstance(value, list):
        out = []
        for index, item in enumerate(value):
            out += flatten(item, f"{where}[{index}]")
        return out or [f"{where}: []"]
    if isinstance(value, str):
        first, *rest = value.split("\n")
        return [f"{where}: {first}"] + [f"{where}+ {line}" for line in rest]
    return [f"{where}: {json.dumps(value)}"]


def _query_without_keys(query: str) -> str:
    from urllib.parse import parse_qsl, urlencode

    pairs = [(k, v) for k, v in parse_qsl(query, keep_blank_values=True) if k != "key"]
    return urlencode(sorted(pairs))
