"""Token usage read from the wire, as the bytes stream past (never buffering the stream).

Each API carries usage in a few known places: Anthropic ``message_start.message.usage`` and
``message_delta.usage``; Responses ``response.completed`` (or ``.incomplete``/``.failed``)
``response.usage``; Gemini ``usageMetadata`` in every chunk (the last one counts); Chat
Completions a final chunk's ``usage``. The scanner keeps only the last line holding each
marker and parses those few lines at the end, so a 50 MB stream costs a substring search per
chunk, not a JSON parse per event. A plain JSON body (no stream) is kept up to a cap and
parsed whole.

Counts follow genai-prices' meaning: ``input_tokens`` is every input token, cache reads and
writes included; ``cache_read_tokens`` and ``cache_write_tokens`` are parts of it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from holon_core.gateway.apis import ANTHROPIC_MESSAGES, GOOGLE_GENERATE_CONTENT, OPENAI_RESPONSES

#: A non-stream body larger than this is passed through but not read for usage.
BODY_CAP = 8 * 1024 * 1024
#: A single stream line longer than this is passed through but not read.
LINE_CAP = 16 * 1024 * 1024

_MARKERS: dict[str, tuple[bytes, ...]] = {
    ANTHROPIC_MESSAGES: (b'"message_start"', b'"message_delta"'),
    OPENAI_RESPONSES: (
        b'"response.completed"',
        b'"response.incomplete"',
        b'"response.failed"',
        b'"response.created"',
    ),
    GOOGLE_GENERATE_CONTENT: (b'"usageMetadata"',),
}
_CHAT_MARKERS = (b'"usage"', b'"model"')


@dataclass(slots=True)
class Tokens:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    def as_dict(self) -> dict[str, int]:
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cache_read_tokens": self.cache_read_tokens,
            "cache_write_tokens": self.cache_write_tokens,
        }


@dataclass(slots=True)
class WireUsage:
    """What one response said about itself: its model and its tokens (None: not found)."""

    model: str | None = None
    tokens: Tokens | None = None


class UsageScanner:
    """Feed it the response's bytes in order; :meth:`result` reads usage at the end."""

    def __init__(self, api: str, *, stream: bool) -> None:
        self.api = api
        self.stream = stream
        self._markers = _MARKERS.get(api, _CHAT_MARKERS)
        self._partial = b""
        self._last: dict[bytes, bytes] = {}
        self._body: list[bytes] = []
        self._body_size = 0
        self.overflow = False

    def feed(self, chunk: bytes) -> None:
        if not self.stream:
            self._body_size += len(chunk)
            if self._body_size <= BODY_CAP:
                self._body.append(chunk)
            else:
                self.overflow = True
            return
        data = self._partial + chunk if self._partial else chunk
        end = data.rfind(b"\n")
        if end < 0:
            self._partial = data if len(data) <= LINE_CAP else b""
            return
        self._partial = data[end + 1 :]
        self._scan(data[: end + 1])

    def _scan(self, block: bytes) -> None:
        for marker in self._markers:
            at = block.rfind(marker)
            if at < 0:
                continue
            start = block.rfind(b"\n", 0, at) + 1
            stop = block.find(b"\n", at)
            self._last[marker] = block[start : stop if stop >= 0 else len(block)]

    def result(self) -> WireUsage:
        if self._partial:
            self._scan(self._partial)
            self._partial = b""
        if not self.stream:
            return self._from_body()
        events = [_sse_json(line) for line in self._last.values()]
        return _read(self.api, [e for e in events if e is not None])

    def _from_body(self) -> WireUsage:
        if self.overflow or not self._body:
            return WireUsage()
        try:
            data = json.loads(b"".join(self._body))
        except ValueError:
            return WireUsage()
        items = data if isinstance(data, list) else [data]  # Gemini's streamed JSON array
        return _read(self.api, [i for i in items if isinstance(i, dict)])


def _sse_json(line: bytes) -> dict[str, Any] | None:
    text = line.strip()
    if text.startswith(b"data:"):
        text = text[5:].strip()
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _read(api: str, items: list[dict[str, Any]]) -> WireUsage:
    if api == ANTHROPIC_MESSAGES:
        return _anthropic(items)
    if api == OPENAI_RESPONSES:
        return _responses(items)
    if api == GOOGLE_GENERATE_CONTENT:
        return _google(items)
    return _chat(items)


def _anthropic(items: list[dict[str, Any]]) -> WireUsage:
    model, found = None, False
    usage: dict[str, Any] = {}
    for item in items:
        message = _dict(item.get("message")) if item.get("type") == "message_start" else item
        if item.get("type") in ("message_start", "message_delta", "message", None):
            if "usage" in message:
                found = True
                usage |= {k: v for k, v in _dict(message.get("usage")).items() if v is not None}
            model = model or message.get("model")
    if not found:
        return WireUsage(model=model if isinstance(model, str) else None)
    read = _int(usage.get("cache_read_input_tokens"))
    write = _int(usage.get("cache_creation_input_tokens"))
    tokens = Tokens(
        input_tokens=_int(usage.get("input_tokens")) + read + write,
        output_tokens=_int(usage.get("output_tokens")),
        cache_read_tokens=read,
        cache_write_tokens=write,
    )
    return WireUsage(model=model if isinstance(model, str) else None, tokens=tokens)


def _responses(items: list[dict[str, Any]]) -> WireUsage:
    model, tokens = None, None
    for item in items:
        response = _dict(item.get("response")) if "response" in item else item
        model = response.get("model") or model
        usage = response.get("usage")
        if isinstance(usage, dict):
            details = _dict(usage.get("input_tokens_details"))
            tokens = Tokens(
                input_tokens=_int(usage.get("input_tokens")),
                output_tokens=_int(usage.get("output_tokens")),
                cache_read_tokens=_int(details.get("cached_tokens")),
                cache_write_tokens=_int(details.get("cache_write_tokens")),
            )
    return WireUsage(model=model if isinstance(model, str) else None, tokens=tokens)


def _google(items: list[dict[str, Any]]) -> WireUsage:
    model, tokens = None, None
    for item in items:
        model = item.get("modelVersion") or model
        meta = item.get("usageMetadata")
        if isinstance(meta, dict):
            tokens = Tokens(
                input_tokens=_int(meta.get("promptTokenCount"))
                + _int(meta.get("toolUsePromptTokenCount")),
                output_tokens=_int(meta.get("candidatesTokenCount"))
                + _int(meta.get("thoughtsTokenCount")),
                cache_read_tokens=_int(meta.get("cachedContentTokenCount")),
            )
    return WireUsage(model=model if isinstance(model, str) else None, tokens=tokens)


def _chat(items: list[dict[str, Any]]) -> WireUsage:
    model, tokens = None, None
    for item in items:
        model = item.get("model") or model
        usage = item.get("usage")
        if isinstance(usage, dict):
            details = _dict(usage.get("prompt_tokens_details"))
            tokens = Tokens(
                input_tokens=_int(usage.get("prompt_tokens")),
                output_tokens=_int(usage.get("completion_tokens")),
                cache_read_tokens=_int(details.get("cached_tokens")),
                cache_write_tokens=_int(details.get("cache_write_tokens")),
            )
    return WireUsage(model=model if isinstance(model, str) else None, tokens=tokens)
