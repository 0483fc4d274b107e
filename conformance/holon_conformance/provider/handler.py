"""The HTTP side: route a request to an engine's API, record it, serve the scripted answer."""

from __future__ import annotations

import contextlib
import gzip
import json
import logging
import socket
from http.server import BaseHTTPRequestHandler
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlsplit

from holon_conformance.provider import wire
from holon_conformance.provider.actions import Reply, build_reply
from holon_conformance.provider.conversation import Conversation, read_conversation
from holon_conformance.provider.recording import Kind, RecordedRequest, redact_headers
from holon_conformance.provider.scenario import MAX_STALL_SECONDS, Turn
from holon_conformance.provider.schema_answer import value_for

if TYPE_CHECKING:
    from holon_conformance.provider.server import ScriptedProvider

log = logging.getLogger("holon_conformance.provider")


def _engine_for(method: str, path: str, headers: dict[str, str]) -> str | None:
    if path.startswith("/v1/messages"):
        return "claude"
    if path.startswith("/v1/responses"):
        return "codex"
    if path.startswith("/v1beta/"):
        return "gemini"
    if path.startswith("/v1/models"):
        lower = {k.lower() for k in headers}
        return "claude" if "anthropic-version" in lower or "x-api-key" in lower else "codex"
    return None


class ProviderHandler(BaseHTTPRequestHandler):
    """One connection. ``server.provider`` is the owning :class:`ScriptedProvider`."""

    protocol_version = "HTTP/1.1"
    server_version = "holon-scripted-provider"
    timeout = 300

    @property
    def provider(self) -> ScriptedProvider:
        return self.server.provider  # type: ignore[attr-defined, no-any-return]

    def setup(self) -> None:
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

    def _send(self, status: int, body: str, content_type: str = "application/json") -> None:
        data = body.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        if status >= 400:
            self.send_header("x-should-retry", "true")
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
        engine = _engine_for(method, path, headers)
        record = RecordedRequest(
            engine=engine,
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
        if method == "GET" and (path.startswith("/v1/models") or path.startswith("/v1beta/models")):
            self._finish_record(record, "models", "models")
            self._json(200, _model_list(engine))
            return
        if engine is None or method != "POST":
            self._finish_record(record, "other", "404")
            self._json(404, {"error": {"message": f"scripted provider: no route {path}"}})
            return
        if path.endswith("/count_tokens") or path.endswith(":countTokens"):
            self._finish_record(record, "count", "count")
            tokens = max(1, len(json.dumps(body)) // 4)
            self._json(
                200, {"totalTokens": tokens} if engine == "gemini" else {"input_tokens": tokens}
            )
            return
        self._model_call(engine, path, query, body, record)

    def _finish_record(self, record: RecordedRequest, kind: Kind, served: str) -> None:
        record.kind = kind
        record.served = served
        for warning in record.warnings:
            log.warning("%s turn %s: %s", record.engine, record.turn, warning)
        self.provider.recorder.add(record)

    # --- model calls ----------------------------------------------------------------------

    def _model_call(
        self,
        engine: str,
        path: str,
        query: dict[str, str],
        body: dict[str, Any],
        record: RecordedRequest,
    ) -> None:
        conv = read_conversation(engine, body, path)
        if conv.workspace is None and self.provider.workdir:
            conv.workspace = self.provider.workdir
        stream = _wants_stream(engine, path, query, body)
        if conv.aux_schema is not None:
            self._finish_record(record, "aux", "aux")
            text = json.dumps(value_for(conv.aux_schema) if conv.aux_schema else {})
            self._reply(engine, conv, Reply(text=text), 0, stream)
            return
        record.turn = conv.tool_calls
        turn, gate = self.provider._next(engine, conv.tool_calls)
        if gate is not None:
            self._gate(engine, gate, record, stream)
            return
        reply = build_reply(turn, conv)
        record.warnings.extend(reply.warnings)
        self._finish_record(record, "turn", "reply")
        if turn.delay and self.provider.stopping.wait(turn.delay):
            self.close_connection = True
            return
        self._reply(engine, conv, reply, conv.tool_calls, stream)

    def _reply(
        self, engine: str, conv: Conversation, reply: Reply, turn: int, stream: bool
    ) -> None:
        if engine == "claude":
            message = wire.claude_message(reply, conv, turn)
            if stream:
                self._send(200, wire.claude_sse(message), "text/event-stream")
            else:
                self._json(200, message)
        elif engine == "codex":
            self._send(200, wire.codex_sse(reply, conv, turn), "text/event-stream")
        else:
            response = wire.gemini_response(reply, conv, turn)
            if stream:
                self._send(200, wire.gemini_sse(response), "text/event-stream")
            else:
                self._json(200, response)

    def _gate(self, engine: str, gate: Turn, record: RecordedRequest, stream: bool) -> None:
        stopping = self.provider.stopping
        if gate.action == "error":
            status = int(gate.args["status"])
            self._finish_record(record, "turn", f"error {status}")
            if gate.delay and stopping.wait(gate.delay):
                return
            message = str(gate.args.get("message", f"scripted error {status}"))
            self._json(status, wire.error_body(engine, status, message))
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


def _wants_stream(engine: str, path: str, query: dict[str, str], body: dict[str, Any]) -> bool:
    if engine == "gemini":
        return ":streamGenerateContent" in path or query.get("alt") == "sse"
    if engine == "codex":
        return True
    return bool(body.get("stream"))


def _model_list(engine: str | None) -> dict[str, Any]:
    if engine == "gemini":
        names = ("gemini-2.5-flash", "gemini-2.5-pro")
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
    if engine == "claude":
        ids = ("claude-sonnet-4-5", "claude-opus-4-8")
        data = [
            {"type": "model", "id": i, "display_name": i, "created_at": "2025-01-01T00:00:00Z"}
            for i in ids
        ]
        return {"data": data, "has_more": False, "first_id": ids[0], "last_id": ids[-1]}
    models = [{"id": "gpt-5.5", "object": "model", "created": 0, "owned_by": "holon"}]
    return {"object": "list", "data": models, "models": []}
