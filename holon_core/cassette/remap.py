"""A recorded answer with the recording's absolute paths turned into the replay's.

A model that wrote ``/tmp/rec/workspace/hello.txt`` at record time must write into the
replay's workspace. Replacing bytes in a raw stream is unsafe: a path can arrive in pieces
(Anthropic ``input_json_delta``, OpenAI ``*.delta`` events) and paths live inside JSON
strings. So a streamed answer's events are parsed, consecutive deltas of one block that
together hold a recorded path are merged into the first of them, and every JSON string is
rewritten; an answer that holds no recorded path is served byte for byte.
"""

from __future__ import annotations

import json
from typing import Any

from holon_core.cassette.normalize import replace_all

#: Delta events: (event ``type``, the field holding the fragment), per wire API.
_DELTAS = {
    "content_block_delta": ("delta", ("text", "partial_json")),
    "response.output_text.delta": (None, ("delta",)),
    "response.function_call_arguments.delta": (None, ("delta",)),
    "response.custom_tool_call_input.delta": (None, ("delta",)),
    "response.reasoning_summary_text.delta": (None, ("delta",)),
}
_BLOCK_KEYS = ("index", "item_id", "output_index", "content_index", "summary_index")


class PathRewrite:
    """``pairs``: (recorded path, replay path), longest first."""

    def __init__(self, pairs: list[tuple[str, str]]) -> None:
        self.pairs = sorted(((a, b) for a, b in pairs if a and a != b), key=lambda p: -len(p[0]))

    def text(self, value: str) -> str:
        return replace_all(value, dict(self.pairs))

    def touches(self, data: bytes) -> bool:
        return any(old.encode() in data or _escaped(old) in data for old, _ in self.pairs)

    def json_value(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self.json_value(v) for v in value]
        if isinstance(value, dict):
            return {k: self.json_value(v) for k, v in value.items()}
        return value

    def body(self, data: bytes) -> bytes:
        """A whole (non-streamed) answer."""
        if not self.pairs or not self.touches(data):
            return data
        try:
            value = json.loads(data)
        except ValueError:
            return self.text(data.decode("utf-8", "replace")).encode()
        return json.dumps(self.json_value(value), ensure_ascii=False).encode()

    def events(self, events: list[bytes]) -> list[bytes]:
        """A streamed answer's SSE events (each ending with its blank line)."""
        if not self.pairs:
            return events
        parsed = [_SseEvent.parse(raw) for raw in events]
        merged = self._merge_split_paths(parsed)
        return [event.render(self) for event in merged]

    def _merge_split_paths(self, events: list[_SseEvent]) -> list[_SseEvent]:
        out: list[_SseEvent] = []
        run: list[_SseEvent] = []

        def close_run() -> None:
            if len(run) > 1 and self._holds_path("".join(e.fragment() for e in run)):
                first = run[0]
                first.set_fragment("".join(e.fragment() for e in run))
                out.append(first)
            else:
                out.extend(run)
            run.clear()

        for event in events:
            if event.delta_block() is not None and (
                not run or run[-1].delta_block() == event.delta_block()
            ):
                run.append(event)
                continue
            close_run()
            if event.delta_block() is not None:
                run.append(event)
            else:
                out.append(event)
        close_run()
        return out

    def _holds_path(self, text: str) -> bool:
        return any(old in text or old.replace("/", "\\/") in text for old, _ in self.pairs)


def _escaped(path: str) -> bytes:
    return path.replace("/", "\\/").encode()


class _SseEvent:
    """One SSE event: its lines, and its ``data:`` parsed as JSON when it is."""

    def __init__(self, raw: bytes, data: Any, ending: bytes) -> None:
        self.raw = raw
        self.data = data
        self.ending = ending
        self.changed = False

    @classmethod
    def parse(cls, raw: bytes) -> _SseEvent:
        ending = b"\r\n\r\n" if raw.endswith(b"\r\n\r\n") else b"\n\n"
        payload = [line[5:].lstrip(b" ") for line in raw.splitlines() if line.startswith(b"data:")]
        data = None
        if len(payload) == 1:
            try:
                data = json.loads(payload[0])
            except ValueError:
                data = None
        return cls(raw, data, ending)

    def delta_block(self) -> tuple[Any, ...] | None:
        if not isinstance(self.data, dict):
            return None
        kind = self.data.get("type")
        if kind not in _DELTAS:
            return None
        return (kind, *(self.data.get(k) for k in _BLOCK_KEYS), self._field()[0])

    def _field(self) -> tuple[str | None, dict[str, Any] | None]:
        assert isinstance(self.data, dict)
        holder_key, names = _DELTAS[self.data["type"]]
        holder = self.data.get(holder_key) if holder_key else self.data
        if not isinstance(holder, dict):
            return None, None
        for name in names:
            if isinstance(holder.get(name), str):
                return name, holder
        return None, None

    def fragment(self) -> str:
        name, holder = self._field()
        return str(holder[name]) if name is not None and holder is not None else ""

    def set_fragment(self, text: str) -> None:
        name, holder = self._field()
        if name is not None and holder is not None:
            holder[name] = text
            self.changed = True

    def render(self, rewrite: PathRewrite) -> bytes:
        if self.data is None or not (self.changed or rewrite.touches(self.raw)):
            return self.raw
        data = json.dumps(rewrite.json_value(self.data), ensure_ascii=False)
        lines = [line for line in self.raw.splitlines() if not line.startswith(b"data:")]
        lines = [line for line in lines if line]
        newline = b"\r\n" if self.ending == b"\r\n\r\n" else b"\n"
        return newline.join([*lines, b"data: " + data.encode()]) + self.ending
