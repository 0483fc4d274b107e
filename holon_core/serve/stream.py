"""A turn's Open Responses event stream, built from holon's normalized events.

Every event gets the next ``sequence_number`` and goes to one sink: the turn writes it to
``events.ndjson`` and hands it to whoever streams it, so the file is exactly the stream sent.

Mapping: assistant text becomes a ``message`` item (added, one content part, its
``output_text`` delta and done events, item done). A tool call of the engine becomes a
``holon:tool_call`` item (added when called, done with its result: ``status`` completed or
failed, ``output``, ``exit_code``): Open Responses has no item for a tool the engine runs
itself, so it is an extension type, prefixed with the ``holon`` slug as the spec requires.
Retries and engine errors are ``holon:engine_event`` stream events. The stream ends with
``response.completed`` (success), ``response.incomplete`` (needs human) or an ``error``
event followed by ``response.failed`` (failure, including a cancel).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

from holon_core.events import Event
from holon_core.serve.protocol import new_id

#: Characters of a tool's output kept in its item (the whole output is in evidence/).
TOOL_OUTPUT_CHARS = 4096
Sink = Callable[[dict[str, Any]], None]


class TurnStream:
    """Numbers events, tracks output items, and keeps the response snapshot up to date."""

    def __init__(self, sink: Sink, redact: Callable[[str], str]) -> None:
        self._sink = sink
        self._redact = redact
        self._seq = 0
        self._lock = threading.Lock()
        self.output: list[dict[str, Any]] = []
        self._tools: dict[str, int] = {}  # engine tool id -> output index
        self.text_parts: list[str] = []

    def emit(self, event: dict[str, Any]) -> None:
        with self._lock:
            self._seq += 1
            self._sink({"type": event["type"], "sequence_number": self._seq, **event})

    def lifecycle(self, kind: str, response: dict[str, Any]) -> None:
        """``response.created``, ``.in_progress``, ``.completed``, ``.failed``, ``.incomplete``."""
        self.emit({"type": f"response.{kind}", "response": response})

    def error(self, code: str, message: str) -> None:
        error = {"type": "model_error", "code": code, "message": message, "param": None}
        self.emit({"type": "error", "error": error})

    def feed(self, event: Event) -> None:
        """One normalized event of the engine (called from the supervising thread)."""
        if event.type == "message" and event.text and not event.data.get("unparsed"):
            self._message(self._redact(event.text))
        elif event.type == "tool_call":
            self._tool_call(event)
        elif event.type == "tool_result":
            self._tool_result(event)
        elif event.type in ("retry", "error"):
            detail = {"type": event.type, "text": event.text, "data": event.data}
            self.emit({"type": "holon:engine_event", "event": self._clean(detail)})

    def _message(self, text: str) -> None:
        index, item_id = len(self.output), new_id("msg")
        item: dict[str, Any] = {
            "type": "message",
            "id": item_id,
            "status": "in_progress",
            "role": "assistant",
            "content": [],
        }
        self.output.append(item)
        self.text_parts.append(text)
        where = {"item_id": item_id, "output_index": index, "content_index": 0}
        self.emit({"type": "response.output_item.added", "output_index": index, "item": item})
        empty = {"type": "output_text", "text": "", "annotations": [], "logprobs": []}
        self.emit({"type": "response.content_part.added", **where, "part": empty})
        self.emit({"type": "response.output_text.delta", **where, "delta": text, "logprobs": []})
        self.emit({"type": "response.output_text.done", **where, "text": text, "logprobs": []})
        part = {**empty, "text": text}
        self.emit({"type": "response.content_part.done", **where, "part": part})
        done = {**item, "status": "completed", "content": [part]}
        self.output[index] = done
        self.emit({"type": "response.output_item.done", "output_index": index, "item": done})

    def _tool_call(self, event: Event) -> None:
        index = len(self.output)
        call_id = str(event.tool_id or new_id("call"))
        arguments = self._redact(json.dumps(event.data, ensure_ascii=False, default=str))
        item = {
            "type": "holon:tool_call",
            "id": new_id("htc"),
            "status": "in_progress",
            "call_id": call_id,
            "name": event.tool or "tool",
            "arguments": arguments,
            "output": None,
            "exit_code": None,
        }
        self.output.append(item)
        self._tools[call_id] = index
        self.emit({"type": "response.output_item.added", "output_index": index, "item": item})

    def _tool_result(self, event: Event) -> None:
        index = self._tools.get(str(event.tool_id))
        if index is None:
            return
        output = event.data.get("output")
        text = output if isinstance(output, str) else None
        if text is not None:
            text = self._redact(text[:TOOL_OUTPUT_CHARS])
        exit_code = event.data.get("exit_code")
        item = {
            **self.output[index],
            "status": "failed" if event.status == "error" else "completed",
            "output": text,
            "exit_code": exit_code if type(exit_code) is int else None,
        }
        already_done = self.output[index]["status"] != "in_progress"
        self.output[index] = item
        if already_done:  # a later, truer result (e.g. exit codes read after the run)
            self.emit({"type": "holon:tool_call.amended", "output_index": index, "item": item})
        else:
            self.emit({"type": "response.output_item.done", "output_index": index, "item": item})

    def close_open_items(self) -> None:
        """Tool calls that never got a result (the engine stopped) end ``incomplete``."""
        for index, item in enumerate(self.output):
            if item["status"] == "in_progress":
                item = {**item, "status": "incomplete"}
                self.output[index] = item
                self.emit(
                    {"type": "response.output_item.done", "output_index": index, "item": item}
                )

    def _clean(self, value: dict[str, Any]) -> dict[str, Any]:
        text = json.dumps(value, ensure_ascii=False, default=str)
        cleaned: dict[str, Any] = json.loads(self._redact(text))
        return cleaned
