"""A request's ``input`` read as a conversation: earlier turns, system text, this turn's task.

A stateless client sends the whole conversation each time (Open Responses ``ItemParam``
list): user, assistant, system and developer messages (``type: "message"`` or implicit),
and the ``function_call`` / ``function_call_output`` items a response carried (holon's own
tool calls echoed back). Reading it:

- ``system`` and ``developer`` messages, wherever they are, go to the system prompt;
- the user messages after the last assistant-side item (message, tool call or output) are
  this turn's task, with their images and files (:mod:`holon_core.serve.attachments`);
- everything before is the history: one exchange per run of user messages and the
  assistant-side items that answered them, rendered like the transcript of stored turns.
  Its inline images and files are written with this turn's (``earlier``), and the history
  names where (``attachments`` of its records; a URL is named, not fetched again);
- ``reasoning`` items are skipped (their content is the model's, not the conversation's);
  item references and compaction items are refused (holon cannot resolve them).

Input that ends with an assistant-side item has no task and is refused.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from holon_core.serve import attachments as att
from holon_core.serve.errors import RequestError

#: Characters of one echoed tool output kept in the history.
TOOL_OUTPUT_CHARS = 2000
_TEXT_PARTS = ("input_text", "output_text", "text")
_ASSISTANT_SIDE = ("function_call", "function_call_output")


@dataclass
class ParsedInput:
    """What ``input`` holds, sorted by where it goes."""

    text: str
    #: Earlier exchanges, as store records: ``{"input_text", "output_text", "attachments"}``
    #: (the names of the exchange's files, made paths when they are written).
    history: list[dict[str, Any]] = field(default_factory=list)
    system: list[str] = field(default_factory=list)
    attachments: list[att.Attachment] = field(default_factory=list)
    #: The history's inline files, written beside this turn's.
    earlier: list[att.Attachment] = field(default_factory=list)


@dataclass
class _Exchange:
    user: list[str] = field(default_factory=list)
    assistant: list[str] = field(default_factory=list)
    attachments: list[att.Attachment] = field(default_factory=list)


def parse_items(items: list[Any]) -> ParsedInput:
    """Sort a list of input items; RequestError (400, param naming the item) if one is bad."""
    system: list[str] = []
    done: list[_Exchange] = []
    current = _Exchange()
    numbers = {"image": 0, "file": 0}
    for index, item in enumerate(items):
        where = f"input[{index}]"
        kind, role = _kind(item, where)
        if kind == "reasoning":
            continue
        if kind == "message" and role in ("system", "developer"):
            system.append(_plain_text(item.get("content"), f"{where}.content"))
        elif kind == "message" and role == "user":
            if current.assistant:
                done.append(current)
                current = _Exchange()
            text, found = _user_content(item.get("content"), f"{where}.content", numbers)
            current.user.append(text)
            current.attachments += found
        elif kind == "message":  # assistant
            current.assistant.append(_plain_text(item.get("content"), f"{where}.content"))
        else:
            current.assistant.append(_tool_line(item, kind, where))
    if current.assistant or not current.user:
        raise RequestError(
            400,
            "input must end with a user message: the task of this turn "
            "(earlier assistant messages and tool items are its history)",
            param="input",
        )
    earlier = [a for exchange in done for a in exchange.attachments]
    att.check_counts(current.attachments, len(earlier) + len(current.attachments))
    text = "\n\n".join(t for t in current.user if t)
    if not text.strip() and not current.attachments:
        raise RequestError(400, "input holds no text; say what the engine should do", param="input")
    history = [_record(exchange) for exchange in done]
    system = [s for s in system if s.strip()]
    inline = [a for a in earlier if a.url is None]
    return ParsedInput(text, history, system, current.attachments, inline)


def _kind(item: object, where: str) -> tuple[str, str | None]:
    if not isinstance(item, dict):
        raise RequestError(400, f"{where} must be an object (an input item)", param=where)
    kind = item.get("type")
    role = item.get("role")
    if kind is None and role is not None:
        kind = "message"
    if kind == "message":
        if role not in ("user", "assistant", "system", "developer"):
            raise RequestError(
                400,
                f"{where}.role must be user, assistant, system or developer",
                param=f"{where}.role",
            )
        return kind, role
    if kind in _ASSISTANT_SIDE or kind == "reasoning":
        return kind, None
    if kind in (None, "item_reference", "compaction"):
        raise RequestError(
            400,
            f"{where}: {kind or 'item_reference'} items are not supported by holon "
            "(it stores no items to refer to); send the messages themselves",
            param=where,
            code="unsupported",
        )
    raise RequestError(
        400,
        f"{where}: item type {str(kind)[:60]!r} is not supported; send message, "
        "function_call or function_call_output items",
        param=f"{where}.type",
    )


def _plain_text(content: object, where: str) -> str:
    """The text of a system, developer or assistant message (text and refusal parts)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise RequestError(400, f"{where} must be a string or a list of parts", param=where)
    texts = []
    for index, part in enumerate(content):
        here = f"{where}[{index}]"
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "refusal" and isinstance(part, dict):
            texts.append(f"(refused: {_string(part, 'refusal', here)})")
        elif kind in _TEXT_PARTS and isinstance(part, dict):
            texts.append(_string(part, "text", here))
        else:
            raise RequestError(
                400, f"{here}: only text parts are supported in this message", param=here
            )
    return "\n".join(texts)


def _user_content(
    content: object, where: str, numbers: dict[str, int]
) -> tuple[str, list[att.Attachment]]:
    if isinstance(content, str):
        return content, []
    if not isinstance(content, list):
        raise RequestError(400, f"{where} must be a string or a list of parts", param=where)
    texts: list[str] = []
    found: list[att.Attachment] = []
    for index, part in enumerate(content):
        here = f"{where}[{index}]"
        kind = part.get("type") if isinstance(part, dict) else None
        if kind in _TEXT_PARTS and isinstance(part, dict):
            texts.append(_string(part, "text", here))
        elif kind == "input_image" and isinstance(part, dict):
            numbers["image"] += 1
            found.append(att.image_part(part, here, numbers["image"]))
        elif kind == "input_file" and isinstance(part, dict):
            numbers["file"] += 1
            found.append(att.file_part(part, here, numbers["file"]))
        else:
            raise RequestError(
                400,
                f"{here}: only input_text, input_image and input_file parts are supported",
                param=here,
            )
    return "\n".join(texts), found


def _string(part: dict[str, Any], name: str, where: str) -> str:
    value = part.get(name)
    if not isinstance(value, str):
        raise RequestError(400, f"{where}.{name} must be a string", param=f"{where}.{name}")
    return value


def _tool_line(item: dict[str, Any], kind: str, where: str) -> str:
    """An echoed tool call or its output, as one line of the assistant's side."""
    if kind == "function_call":
        name = item.get("name")
        arguments = item.get("arguments")
        if not isinstance(name, str) or not isinstance(arguments, str):
            raise RequestError(
                400, f"{where}: a function_call needs name and arguments strings", param=where
            )
        return f"(tool call {name}: {arguments})"
    output = item.get("output")
    if isinstance(output, list):
        output = "\n".join(
            p["text"] if isinstance(p, dict) and isinstance(p.get("text"), str) else "[non-text]"
            for p in output
        )
    if not isinstance(output, str):
        output = json.dumps(output, ensure_ascii=False)
    if len(output) > TOOL_OUTPUT_CHARS:
        output = output[:TOOL_OUTPUT_CHARS] + "…(cut)"
    return f"(tool output: {output})"


def _record(exchange: _Exchange) -> dict[str, Any]:
    record: dict[str, Any] = {
        "input_text": "\n\n".join(t for t in exchange.user if t),
        "output_text": "\n\n".join(t for t in exchange.assistant if t),
    }
    if exchange.attachments:
        record["attachments"] = [a.url or a.name for a in exchange.attachments]
    return record
