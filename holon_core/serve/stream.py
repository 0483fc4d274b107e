"""A turn's Open Responses event stream, built from holon's normalized events.

Every event gets the next ``sequence_number`` and goes to one sink: the turn writes it to
``events.ndjson`` and hands it to whoever streams it, so the file is exactly the stream sent.

Mapping: assistant text becomes a ``message`` item (added, one content part, its
``output_text`` delta and done events, item done). A tool the engine ran becomes the spec's
own pair, so a client generated from the schema shows it as any tool round trip: a
``function_call`` item when the engine calls it (added with empty arguments, the arguments as
one ``response.function_call_arguments.delta`` and ``.done``, item done: the call itself is
complete) and a ``function_call_output`` item with the same ``call_id`` when the result comes
(added and done; its ``output`` is the tool's text, cut to :data:`TOOL_OUTPUT_CHARS`). The
schema's item union has no shell or hosted-tool item, and its output status has no
``failed``: holon's details travel in the output item's optional ``holon`` object
(``status`` completed or failed, ``exit_code``, ``command``).

Only the spec's own events are sent. The spec allows slug-prefixed extension events, but the
official compliance tester (and any client validating against the event union) rejects the
whole stream for one: so a later, truer result of a call already answered (exit codes an
engine reveals after the run) only updates the item in the response's ``output`` (the
terminal event's snapshot and the stored response carry it), and the engine's retries and
errors stay in the turn's evidence (``evidence/events.ndjson``). The stream ends with
``response.completed`` (success), ``response.incomplete`` (needs human) or an ``error`` event
followed by ``response.failed`` (failure, including a cancel).
"""

from __future__ import annotations

import json
import shlex
import threading
from collections.abc import Callable
from typing import Any

from holon_core.engine.events import Event
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
        #: engine tool id -> (the call's arguments, output index of its function_call_output)
        self._calls: dict[str, tuple[dict[str, Any], int | None]] = {}
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
        index, item_id = len(self.output), new_id("fc")
        call_id = str(event.tool_id or new_id("call"))
        # the tool's own input where the adapter wraps it (``input``: Claude Code, Gemini CLI,
        # OpenCode), so ``arguments`` is what the model sent; else holon's flat fields
        given = event.data.get("input")
        shown = given if isinstance(given, dict) else event.data
        arguments = self._redact(json.dumps(shown, ensure_ascii=False, default=str))
        item = {
            "type": "function_call",
            "id": item_id,
            "status": "in_progress",
            "call_id": call_id,
            "name": event.tool or "tool",
            "arguments": "",
        }
        self.output.append(item)
        self._calls[call_id] = (event.data, None)
        where = {"item_id": item_id, "output_index": index}
        self.emit({"type": "response.output_item.added", "output_index": index, "item": item})
        self.emit({"type": "response.function_call_arguments.delta", **where, "delta": arguments})
        self.emit(
            {"type": "response.function_call_arguments.done", **where, "arguments": arguments}
        )
        done = {**item, "status": "completed", "arguments": arguments}
        self.output[index] = done
        self.emit({"type": "response.output_item.done", "output_index": index, "item": done})

    def _tool_result(self, event: Event) -> None:
        call_id = str(event.tool_id)
        if call_id not in self._calls:
            return
        arguments, index = self._calls[call_id]
        output = event.data.get("output")
        if isinstance(output, str):
            text = self._redact(output[:TOOL_OUTPUT_CHARS])
        else:  # none, or an amendment that only brings the exit code: the output stays
            text = "" if index is None else str(self.output[index]["output"])
        exit_code = event.data.get("exit_code")
        command = _command(arguments)
        item = {
            "type": "function_call_output",
            "id": new_id("fco") if index is None else self.output[index]["id"],
            "status": "completed",
            "call_id": call_id,
            "output": text,
            "holon": {
                "status": "failed" if event.status == "error" else "completed",
                "exit_code": exit_code if type(exit_code) is int else None,
                "command": None if command is None else self._redact(command),
            },
        }
        if index is not None:  # a later, truer result (e.g. exit codes read after the run)
            self.output[index] = item  # the final response carries it; no event (see above)
            return
        index = len(self.output)
        self.output.append(item)
        self._calls[call_id] = (arguments, index)
        added = {k: item[k] for k in ("type", "id", "call_id")}
        added |= {"status": "in_progress", "output": ""}  # every field, zero values
        self.emit({"type": "response.output_item.added", "output_index": index, "item": added})
        self.emit({"type": "response.output_item.done", "output_index": index, "item": item})

    def close_open_items(self) -> None:
        """Items still in progress when the engine stopped end ``incomplete``."""
        for index, item in enumerate(self.output):
            if item["status"] == "in_progress":
                item = {**item, "status": "incomplete"}
                self.output[index] = item
                self.emit(
                    {"type": "response.output_item.done", "output_index": index, "item": item}
                )


def _command(arguments: dict[str, Any]) -> str | None:
    """The command line of a shell tool's call, where the engine's arguments name one
    (``command`` at the top or one level down, e.g. Claude Code's ``input.command``)."""
    nested = [v for v in arguments.values() if isinstance(v, dict)]
    for where in (arguments, *nested):
        command = where.get("command")
        if isinstance(command, str):
            return command
        if isinstance(command, list) and all(isinstance(word, str) for word in command):
            return shlex.join(command)
    return None
