"""HTTP/1.1 over a Unix socket with the standard library, and reading an SSE stream.

The serve checks talk to ``holon-agent serve`` from the outside, as any client would, with
no dependency on holon's own client: what they see is what a user's HTTP library sees.
"""

from __future__ import annotations

import http.client
import json
import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


class _UnixConnection(http.client.HTTPConnection):
    def __init__(self, path: str, timeout: float) -> None:
        super().__init__("localhost", timeout=timeout)
        self.socket_path = path

    def connect(self) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        sock.connect(self.socket_path)
        self.sock = sock


@dataclass
class Reply:
    """One HTTP answer: status, headers (lower-case names) and the raw body."""

    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body.decode("utf-8"))


@dataclass
class SseEvent:
    """One server-sent event: its ``event:`` name and ``data:`` (parsed unless ``[DONE]``)."""

    event: str | None
    raw: str
    data: Any = field(default=None)


def request(
    socket_path: str,
    method: str,
    path: str,
    body: dict[str, Any] | None = None,
    *,
    timeout: float = 120.0,
) -> Reply:
    """One request on a fresh connection; raises ``OSError`` (timeouts included) as is."""
    conn = _UnixConnection(socket_path, timeout)
    try:
        payload = None if body is None else json.dumps(body).encode("utf-8")
        headers = {"Content-Type": "application/json"} if payload is not None else {}
        conn.request(method, path, body=payload, headers=headers)
        answer = conn.getresponse()
        data = answer.read()
        return Reply(answer.status, {k.lower(): v for k, v in answer.getheaders()}, data)
    finally:
        conn.close()


def stream(
    socket_path: str,
    path: str,
    body: dict[str, Any],
    on_line: Callable[[str], None],
    *,
    timeout: float = 120.0,
) -> Reply:
    """POST and hand each line of the answer to ``on_line`` as it arrives (a live SSE stream)."""
    conn = _UnixConnection(socket_path, timeout)
    try:
        payload = json.dumps(body).encode("utf-8")
        conn.request("POST", path, body=payload, headers={"Content-Type": "application/json"})
        answer = conn.getresponse()
        chunks: list[bytes] = []
        while True:
            line = answer.readline()
            if not line:
                break
            chunks.append(line)
            on_line(line.decode("utf-8", errors="replace").rstrip("\n"))
        headers = {k.lower(): v for k, v in answer.getheaders()}
        return Reply(answer.status, headers, b"".join(chunks))
    finally:
        conn.close()


def parse_sse(text: str) -> list[SseEvent]:
    """The events of an SSE body (blank-line separated blocks; ``data:`` lines joined)."""
    events: list[SseEvent] = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        name: str | None = None
        lines: list[str] = []
        for line in block.split("\n"):
            if line.startswith("event:"):
                name = line[len("event:") :].strip()
            elif line.startswith("data:"):
                lines.append(line[len("data:") :].removeprefix(" "))
        if not lines:
            continue
        raw = "\n".join(lines)
        event = SseEvent(name, raw)
        if raw != "[DONE]":
            try:
                event.data = json.loads(raw)
            except ValueError:
                event.data = None
        events.append(event)
    return events
