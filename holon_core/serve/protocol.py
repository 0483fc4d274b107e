"""Open Responses shapes: reading a create-response request, building response and error objects.

Plain dicts and dataclasses, no web framework: the turn runner, the store and the client all
use them. Holon's own fields travel in the request's and the response's ``holon`` object (an
optional extension field, as the Open Responses extension rules allow).
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass, field
from typing import Any, Literal

from holon_core.serve.errors import RequestError

#: Ids holon generates and accepts from clients: no path separators, no dot-dot.
ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")
HOLON_FIELDS = ("session_id", "turn_id", "input_dir", "output_dir", "workspace")
#: Open Responses fields holon accepts without acting on them, with the JSON type they need.
IGNORED_FIELDS: dict[str, tuple[type, ...]] = {
    "temperature": (int, float),
    "top_p": (int, float),
    "presence_penalty": (int, float),
    "frequency_penalty": (int, float),
    "max_output_tokens": (int,),
    "max_tool_calls": (int,),
    "top_logprobs": (int,),
    "parallel_tool_calls": (bool,),
    "store": (bool,),
    "include": (list,),
    "tool_choice": (str, dict),
    "truncation": (str,),
    "service_tier": (str,),
    "reasoning": (dict,),
    "text": (dict,),
    "stream_options": (dict,),
    "safety_identifier": (str,),
    "prompt_cache_key": (str,),
}
WORKSPACE_MODES = ("shared", "isolated")


def new_id(prefix: str) -> str:
    return f"{prefix}_{secrets.token_hex(12)}"


def valid_id(value: str) -> bool:
    return bool(ID_PATTERN.match(value)) and ".." not in value


@dataclass
class TurnRequest:
    """A validated ``POST /v1/responses`` body (the parts holon uses)."""

    input_text: str
    input_items: list[dict[str, Any]]
    model: str | None = None
    instructions: str | None = None
    previous_response_id: str | None = None
    stream: bool = False
    metadata: dict[str, str] = field(default_factory=dict)
    session_id: str | None = None
    turn_id: str | None = None
    input_dir: str | None = None
    output_dir: str | None = None
    workspace: Literal["shared", "isolated"] | None = None
    #: Earlier turns the input carried (stateless history), oldest first, as store records.
    history: list[dict[str, Any]] = field(default_factory=list)
    #: Text of the input's system and developer messages, for the system prompt.
    system: list[str] = field(default_factory=list)
    #: This turn's images and files (``holon_core.serve.attachments.Attachment``).
    attachments: list[Any] = field(default_factory=list)
    #: The history's inline images and files, written with this turn's.
    earlier_attachments: list[Any] = field(default_factory=list)
    #: ``holon.budget``: this turn's limits on its model calls (docs/gateway.md).
    budget: dict[str, Any] | None = None

    @property
    def system_prompt(self) -> str:
        """``instructions`` and the system/developer messages: what the system prompt gets."""
        return "\n\n".join(t for t in [self.instructions or "", *self.system] if t.strip())


def parse_request(body: object) -> TurnRequest:
    """Check the body's types and turn it into a :class:`TurnRequest`; RequestError if bad.

    Fields holon does not act on (``temperature``, ``tools``, ...) are accepted and ignored;
    a field of the wrong type is refused, naming it.
    """
    if not isinstance(body, dict):
        raise RequestError(400, "the request body must be a JSON object", code="invalid_body")
    _check_ignored(body)
    model = _optional(body, "model", str)
    instructions = _optional(body, "instructions", str)
    previous = _optional(body, "previous_response_id", str)
    if previous is not None and not valid_id(previous):
        raise RequestError(
            400, "previous_response_id is not a response id", param="previous_response_id"
        )
    stream = _optional(body, "stream", bool) or False
    metadata = _optional(body, "metadata", dict) or {}
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()):
        raise RequestError(400, "metadata must map strings to strings", param="metadata")
    text, items, parsed = _parse_input(body.get("input"))
    if previous is not None and parsed.history:
        raise RequestError(
            400,
            "input carries earlier turns (assistant messages or tool items) and "
            "previous_response_id names a stored conversation too: send one of them, "
            "the whole history without previous_response_id, or only the new user message",
            param="previous_response_id",
            code="ambiguous_history",
        )
    holon = dict(_optional(body, "holon", dict) or {})
    from holon_core.serve.budget import parse_budget

    budget = parse_budget(holon.pop("budget", None))
    values = _holon_fields(holon)
    workspace = values["workspace"]
    return TurnRequest(
        input_text=text,
        input_items=items,
        model=model,
        instructions=instructions,
        previous_response_id=previous,
        stream=stream,
        metadata=metadata,
        session_id=values["session_id"],
        turn_id=values["turn_id"],
        input_dir=values["input_dir"],
        output_dir=values["output_dir"],
        workspace=workspace,  # type: ignore[arg-type]  # checked against WORKSPACE_MODES
        history=parsed.history,
        system=parsed.system,
        attachments=parsed.attachments,
        earlier_attachments=parsed.earlier,
        budget=budget,
    )


def _holon_fields(holon: dict[str, Any]) -> dict[str, str | None]:
    """The request's ``holon`` object (its budget taken out): known string fields, valid ids,
    a workspace mode; RequestError naming the field otherwise."""
    extra = sorted(set(holon) - set(HOLON_FIELDS))
    if extra:
        raise RequestError(
            400,
            f"unknown holon field(s): {', '.join(extra)}; known: {', '.join(HOLON_FIELDS)}, budget",
            param=f"holon.{extra[0]}",
        )
    values: dict[str, str | None] = {}
    for name in HOLON_FIELDS:
        value = holon.get(name)
        if value is not None and not isinstance(value, str):
            raise RequestError(400, f"holon.{name} must be a string", param=f"holon.{name}")
        values[name] = value
    for name in ("session_id", "turn_id"):
        value = values[name]
        if value is not None and not valid_id(value):
            raise RequestError(
                400,
                f"holon.{name} {value[:80]!r} is not a valid id: use 1-128 letters, digits, "
                "'_', '-' or '.', starting with a letter or digit",
                param=f"holon.{name}",
            )
    workspace = values["workspace"]
    if workspace is not None and workspace not in WORKSPACE_MODES:
        raise RequestError(
            400, "holon.workspace must be 'shared' or 'isolated'", param="holon.workspace"
        )
    return values


def _check_ignored(body: dict[str, Any]) -> None:
    """Fields holon ignores must still have their type; the ones it cannot honour are refused."""
    for name, kinds in IGNORED_FIELDS.items():
        value = body.get(name)
        wrong_bool = isinstance(value, bool) and bool not in kinds
        if value is not None and (not isinstance(value, kinds) or wrong_bool):
            names = " or ".join(_JSON_NAMES.get(k, k.__name__) for k in kinds)
            raise RequestError(400, f"{name} must be {names}", param=name)
    if body.get("tools"):
        raise RequestError(
            400,
            "holon offers no client tools: the engine runs its own; send no tools",
            param="tools",
            code="unsupported",
        )
    if body.get("background") is True:
        raise RequestError(
            400,
            "background responses are not supported; stream the turn instead",
            param="background",
            code="unsupported",
        )


_JSON_NAMES = {int: "an integer", float: "a number", bool: "a boolean", list: "an array"}
_JSON_NAMES |= {str: "a string", dict: "an object"}


def _optional(body: dict[str, Any], name: str, kind: type) -> Any:
    value = body.get(name)
    if value is None:
        return None
    if kind is bool and not isinstance(value, bool):
        raise RequestError(400, f"{name} must be a boolean", param=name)
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        names = {str: "a string", dict: "an object", bool: "a boolean"}
        raise RequestError(400, f"{name} must be {names.get(kind, kind.__name__)}", param=name)
    return value


def _parse_input(value: object) -> tuple[str, list[dict[str, Any]], Any]:
    """This turn's text, the items as sent, and the input sorted by where it goes
    (:mod:`holon_core.serve.input_items`: history, system text, attachments)."""
    from holon_core.serve.input_items import ParsedInput, parse_items

    if isinstance(value, str):
        if not value.strip():
            raise RequestError(400, "input is empty; say what the engine should do", param="input")
        return value, [_user_item(value)], ParsedInput(value)
    if not isinstance(value, list) or not value:
        raise RequestError(
            400, "input must be a non-empty string or a list of input items", param="input"
        )
    parsed = parse_items(value)
    return parsed.text, list(value), parsed


def _user_item(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


def response_object(
    *,
    response_id: str,
    created_at: int,
    status: str,
    model: str,
    request: TurnRequest,
    output: list[dict[str, Any]],
    holon: dict[str, Any],
    completed_at: int | None = None,
    error: dict[str, str] | None = None,
    incomplete: str | None = None,
    usage: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A complete Open Responses ``response`` object (every field the schema requires)."""
    return {
        "id": response_id,
        "object": "response",
        "created_at": created_at,
        "completed_at": completed_at,
        "status": status,
        "incomplete_details": {"reason": incomplete} if incomplete else None,
        "model": model,
        "previous_response_id": request.previous_response_id,
        "instructions": request.instructions,
        "output": output,
        "error": error,
        "tools": [],
        "tool_choice": "auto",
        "truncation": "disabled",
        "parallel_tool_calls": False,
        "text": {"format": {"type": "text"}},
        "top_p": 1.0,
        "presence_penalty": 0.0,
        "frequency_penalty": 0.0,
        "top_logprobs": 0,
        "temperature": 1.0,
        "reasoning": None,
        "usage": usage,
        "max_output_tokens": None,
        "max_tool_calls": None,
        "store": True,
        "background": False,
        "service_tier": "default",
        "metadata": request.metadata,
        "safety_identifier": None,
        "prompt_cache_key": None,
        "holon": holon,
    }


def usage_object(usage: dict[str, int]) -> dict[str, Any] | None:
    """Open Responses ``usage`` from an engine report's token counts, when it has them."""
    if "input_tokens" not in usage and "output_tokens" not in usage:
        return None
    tokens_in, tokens_out = usage.get("input_tokens", 0), usage.get("output_tokens", 0)
    return {
        "input_tokens": tokens_in,
        "output_tokens": tokens_out,
        "total_tokens": tokens_in + tokens_out,
        "input_tokens_details": {"cached_tokens": usage.get("cache_read_input_tokens", 0)},
        "output_tokens_details": {"reasoning_tokens": usage.get("reasoning_tokens", 0)},
    }
