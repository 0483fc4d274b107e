"""The HTTP side: route a request to its wire API, record it, serve the scripted answer."""

from __future__ import annotations

import contextlib
import gzip
import json
import logging
import socket
import ssl
from http.server import BaseHTTPRequestHandler
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlsplit

from holon_conformance.provider import wire
from holon_conformance.provider.actions import Reply, build_reply
from holon_conformance.provider.apis import (
    ANTHROPIC_MESSAGES,
    GOOGLE_GENERATE_CONTENT,
    OPENAI_RESPONSES,
    api_for_path,
)
from holon_conformance.provider.conversation import Conversation, read_conversation
from holon_conformance.provider.recording import Kind, RecordedRequest, redact_headers
from holon_conformance.provider.scenario import MAX_STALL_SECONDS, Turn
from holon_conformance.provider.schema_answer import value_for

if TYPE_CHECKING:
    from holon_conformance.provider.server import ScriptedProvider

log = logging.getLogger("holon_conformance.provider")


class ProviderHandler(BaseHTTPRequestHandler):
    """One connection. ``server.provider`` is the owning :class:`ScriptedProvider`."""

    protocol_version = "HTTP/1.1"
    server_version = "holon-scripted-provider"
    timeout = 300

    @property
    def provider(self) -> ScriptedProvider:
        return self.server.provider  # type: ignore[attr-defined, no-any-return]

    def setup(self) -> None:
        # Headers and body are two writes: with Nagle on, the body waits for an ACK a client
        # on a kept-alive connection delays by up to 40 ms (a proxy in between shows it).
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if isinstance(self.request, ssl.SSLSocket):
            self.request.settimeout(30)
            self.request.do_handshake()
        super().setup()
        self.provider._track(self.connection, add=True)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.provider._track(self.connection, add=False)

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("%s " + format, self.address_string(), *args)

    # --- plumbing -------------------------------------------------------------------------

    def _read_body(self) -> dict[str, Any]:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            raw = b""
            while True:
                size = int(self.rfile.readline().strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    break
                raw += self.rfile.read(size)
                self.rfile.readline()
        else:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.headers.get("Content-Encoding", "").lower() == "gzip":
            raw = gzip.decompress(raw)
        if not raw:
            return {}
        try:
            data = json.loads(raw)
        except ValueError:
            return {"_raw": raw.decode("utf-8", "replace")}
        return data if isinstance(data, dict) else {"_value": data}

    def _send(
        self,
        status: int,
        body: str,
        content_type: str = "application/json",
        headers: dict[str, str] | None = None,
    ) -> None:
        data = body.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        if status >= 400:
            self.send_header("x-should-retry", "true")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _json(self, status: int, payload: Any) -> None:
        self._send(status, json.dumps(payload))

    # --- entry points ---------------------------------------------------------------------

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def _dispatch(self, method: str) -> None:
        parts = urlsplit(self.path)
        path, query = parts.path, dict(parse_qsl(parts.query))
        headers = {k.lower(): v for k, v in self.headers.items()}
        body = self._read_body() if method == "POST" else {}
        api = api_for_path(path, headers)
        record = RecordedRequest(
            api=api,
            method=method,
            path=path,
            headers=redact_headers(headers),
            body=body,
            kind="other",
            query={k: ("[redacted]" if k == "key" else v) for k, v in query.items()},
        )
        if path in ("/_fake/reset", "/_provider/reset"):
            self.provider.reset()
            self._json(200, {"ok": True})
            return
        if not _carries_key(self.provider.api_key, headers, query):
            self._finish_record(record, "other", "error 401")
            self._json(401, wire.error_body(api, 401, "scripted provider: wrong API key"))
            return
        if method == "GET" and (path.startswith("/v1/models") or path.startswith("/v1beta/models")):
            self._finish_record(record, "models", "models")
            self._json(200, _model_list(api))
            return
        if api is None or method != "POST":
            self._finish_record(record, "other", "404")
            self._json(404, {"error": {"message": f"scripted provider: no route {path}"}})
            return
        if path.endswith("/count_tokens") or path.endswith(":countTokens"):
            self._finish_record(record, "count", "count")
            tokens = max(1, len(json.dumps(body)) // 4)
            self._json(
                200,
                {"totalTokens": tokens}
                if api == GOOGLE_GENERATE_CONTENT
                else {"input_tokens": tokens},
            )
            return
        self._model_call(api, path, query, body, record)

    def _finish_record(self, record: RecordedRequest, kind: Kind, served: str) -> None:
        record.kind = kind
        record.served = served
        for warning in record.warnings:
            log.warning("%s turn %s: %s", record.api, record.turn, warning)
        self.provider.recorder.add(record)

    # --- model calls ----------------------------------------------------------------------

    def _model_call(
        self,
        api: str,
        path: str,
        query: dict[str, str],
        body: dict[str, Any],
        record: RecordedRequest,
    ) -> None:
        conv = read_conversation(api, body, path)
        if conv.workspace is None and self.provider.workdir:
            conv.workspace = self.provider.workdir
        stream = _wants_stream(api, path, query, body)
        if conv.aux_schema is not None:
            self._finish_record(record, "aux", "aux")
            text = json.dumps(value_for(conv.aux_schema) if conv.aux_schema else {})
            self._reply(api, conv, Reply(text=text), 0, stream)
            return
        record.turn = conv.tool_calls
        turn, gate = self.provider._next(api, conv.tool_calls)
        if gate is not None:
            self._gate(api, gate, record, stream)
            return
        reply = build_reply(turn, conv)
        record.warnings.extend(reply.warnings)
        self._finish_record(record, "turn", "reply")
        if turn.delay and self.provider.stopping.wait(turn.delay):
            self.close_connection = True
            return
        self._reply(api, conv, reply, conv.tool_calls, stream)

    def _reply(self, api: str, conv: Conversation, reply: Reply, turn: int, stream: bool) -> None:
        if api == ANTHROPIC_MESSAGES:
            message = wire.anthropic_message(reply, conv, turn)
            if stream:
                self._send(200, wire.anthropic_sse(message), "text/event-stream")
            else:
                self._json(200, message)
        elif api == OPENAI_RESPONSES:
            self._send(200, wire.responses_sse(reply, conv, turn), "text/event-stream")
        else:
            response = wire.generate_content_response(reply, conv, turn)
            if stream:
                self._send(200, wire.generate_content_sse(response), "text/event-stream")
            else:
                self._json(200, response)

    def _gate(self, api: str, gate: Turn, record: RecordedRequest, stream: bool) -> None:
        stopping = self.provider.stopping
        if gate.action == "error":
            status = int(gate.args["status"])
            self._finish_record(record, "turn", f"error {status}")
            if gate.delay and stopping.wait(gate.delay):
                return
            message = str(gate.args.get("message", f"scripted error {status}"))
            # ``headers``: e.g. retry-after or a rate-limit reset time the API announces
            extra = {str(k): str(v) for k, v in dict(gate.args.get("headers") or {}).items()}
            self._send(status, json.dumps(wire.error_body(api, status, message)), headers=extra)
            return
        if gate.action == "stall":
            self._finish_record(record, "turn", "stall")
            stopping.wait(float(gate.args.get("seconds", MAX_STALL_SECONDS)))
            self.close_connection = True
            return
        self._finish_record(record, "turn", "drop")
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", "1048576")
        self.end_headers()
        self.wfile.write(b'event: ping\ndata: {"type":"pi')
        self.wfile.flush()
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)


def _carries_key(key: str | None, headers: dict[str, str], query: dict[str, str]) -> bool:
    """True without a required key, else when a credential header or ``key=`` holds it."""
    if key is None:
        return True
    found = [headers.get(n, "") for n in ("x-api-key", "x-goog-api-key", "api-key")]
    found += [headers.get("authorization", "").removeprefix("Bearer "), query.get("key", "")]
    return key in found


def _wants_stream(api: str, path: str, query: dict[str, str], body: dict[str, Any]) -> bool:
    if api == GOOGLE_GENERATE_CONTENT:
        return ":streamGenerateContent" in path or query.get("alt") == "sse"
    if api == OPENAI_RESPONSES:
        return True
    return bool(body.get("stream"))


#: Listed models: any name works (every answer echoes the model the request named).
_LISTED = ("scripted-model", "scripted-model-large")


def _model_list(api: str | None) -> dict[str, Any]:
    if api == GOOGLE_GENERATE_CONTENT:
        names = _LISTED
        return {
            "models": [
                {
                    "name": f"models/{n}",
                    "displayName": n,
                    "supportedGenerationMethods": ["generateContent", "countTokens"],
                }
                for n in names
            ]
        }
    if api == ANTHROPIC_MESSAGES:
        ids = _LISTED
        data = [
            {"type": "model", "id": i, "display_name": i, "created_at": "2025-01-01T00:00:00Z"}
            for i in ids
        ]
        return {"data": data, "has_more": False, "first_id": ids[0], "last_id": ids[-1]}
    models = [{"id": "gpt-5.5", "object": "model", "created": 0, "owned_by": "holon"}]
    return {"object": "list", "data": models, "models": []}
