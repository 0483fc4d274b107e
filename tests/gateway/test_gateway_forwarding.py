"""The gateway between a client and the scripted model server over HTTPS: forwarding, the
placeholder credential, streaming without buffering, disconnects, errors passed unchanged."""

from __future__ import annotations

import json
import socket
import threading

import httpx
import pytest

from holon_core.gateway.session import open_gateway

from .kit import REAL_KEY, WireAdapter

BODY = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 100,
    "stream": True,
    "messages": [{"role": "user", "content": "hi"}],
}


def start(env, adapter=None):
    lines: list[str] = []
    session = open_gateway(adapter or WireAdapter(), env, lines.append)
    assert session is not None and session.server is not None, session and session.bypass
    return session, lines


@pytest.fixture
def gateway_env(https_provider, ca_file):
    server = https_provider("final-only")
    env = {"ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": REAL_KEY}
    return server, env | {"SSL_CERT_FILE": str(ca_file)}


def post(session, key, body=BODY, **kw):
    url = session.engine_env["ANTHROPIC_BASE_URL"] + "/v1/messages?beta=true"
    headers = {"x-api-key": key, "anthropic-version": "2023-06-01"}
    return httpx.post(url, json=body, headers=headers, timeout=30, **kw)


def test_a_streamed_call_reaches_the_upstream_with_the_real_key_and_is_metered(gateway_env):
    server, env = gateway_env
    session, lines = start(env)
    try:
        placeholder = session.engine_env["ANTHROPIC_API_KEY"]
        assert placeholder != REAL_KEY and REAL_KEY not in json.dumps(session.engine_env)
        answer = post(session, placeholder)
        assert answer.status_code == 200, answer.text
        assert "message_start" in answer.text and "message_stop" in answer.text
        # The upstream took the call (it answers 401 to anything but the real key).
        assert [r.served for r in server.requests] == ["reply"]
        assert server.requests[0].query == {"beta": "true"}
    finally:
        session.close()
    record = json.loads(lines[0])
    assert record["api"] == "anthropic-messages" and record["kind"] == "model"
    assert record["status"] == 200 and record["attempt"] == 1
    assert record["model"] == "claude-sonnet-4-5"
    assert record["usage"] == {
        "input_tokens": 100,
        "output_tokens": 20,
        "cache_read_tokens": 0,
        "cache_write_tokens": 0,
    }
    assert record["cost_usd"] > 0
    assert record["latency_ms"]["first_byte"] <= record["latency_ms"]["total"]
    usage = session.meter.usage()
    assert usage["source"] == "gateway" and usage["model_calls"] == 1
    assert usage["models"][0]["model"] == "claude-sonnet-4-5"


def test_any_other_credential_is_refused_and_nothing_goes_upstream(gateway_env):
    server, env = gateway_env
    session, _ = start(env)
    try:
        for key in (REAL_KEY, "holon-placeholder-0000", ""):
            answer = post(session, key)
            assert answer.status_code == 403, key
            assert answer.json()["error"]["type"] == "permission_error"
        anonymous = httpx.get(session.engine_env["ANTHROPIC_BASE_URL"] + "/v1/models")
        assert anonymous.status_code == 403
    finally:
        session.close()
    assert server.requests == []


def test_errors_reach_the_client_unchanged(https_provider, ca_file, tmp_path):
    scenario = tmp_path / "limit.yaml"
    scenario.write_text(
        "turns:\n  - error: {status: 429, message: slow down}\n    times: forever\n"
        "  - final: {text: unreachable}\n"
    )
    server = https_provider(str(scenario))
    env = {"ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": REAL_KEY}
    session, lines = start(env | {"SSL_CERT_FILE": str(ca_file)})
    try:
        placeholder = session.engine_env["ANTHROPIC_API_KEY"]
        first, second = post(session, placeholder), post(session, placeholder)
    finally:
        session.close()
    for answer in (first, second):
        assert answer.status_code == 429
        assert answer.headers["x-should-retry"] == "true"
        assert answer.json() == {
            "type": "error",
            "error": {"type": "rate_limit_error", "message": "slow down"},
        }
    assert [json.loads(line)["attempt"] for line in lines] == [1, 2]
    usage = session.meter.usage()
    assert (usage["rate_limited_calls"], usage["failed_calls"]) == (2, 0)


def test_the_upstream_path_keeps_the_users_base_url(https_provider, ca_file):
    """An engine given ``<gateway>/v1`` reaches ``<user's base URL>`` + the rest of the path."""

    class Suffixed(WireAdapter):
        suffix = "/v1"

    server = https_provider("final-only")
    env = {"ANTHROPIC_BASE_URL": server.url + "/v1", "ANTHROPIC_API_KEY": REAL_KEY}
    session, _ = start(env | {"SSL_CERT_FILE": str(ca_file)}, Suffixed())
    try:
        base = session.engine_env["ANTHROPIC_BASE_URL"]
        assert base.endswith("/v1")
        headers = {"x-api-key": session.engine_env["ANTHROPIC_API_KEY"]}
        answer = httpx.post(base + "/messages", json=BODY, headers=headers, timeout=30)
    finally:
        session.close()
    assert answer.status_code == 200
    assert [r.path for r in server.requests] == ["/v1/messages"]


def test_an_untrusted_upstream_certificate_is_refused(https_provider):
    server = https_provider("final-only")
    session, lines = start({"ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": REAL_KEY})
    try:
        answer = post(session, session.engine_env["ANTHROPIC_API_KEY"])
    finally:
        session.close()
    assert answer.status_code == 502
    assert "ConnectError" in json.loads(lines[0])["error"]


def test_an_upstream_that_resets_the_connection_is_named_in_the_502():
    """httpx's ReadError says only which step broke (its message is empty); the 502 the
    engine gets, and the meter's record, say what the OS said."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)

    def reset() -> None:
        conn, _ = listener.accept()
        conn.recv(1)  # the request has arrived and is left unread: close() then resets
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        conn.close()

    threading.Thread(target=reset, daemon=True).start()
    url = f"http://127.0.0.1:{listener.getsockname()[1]}"
    session, lines = start({"ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": REAL_KEY})
    try:
        answer = post(session, session.engine_env["ANTHROPIC_API_KEY"])
    finally:
        session.close()
        listener.close()
    assert answer.status_code == 502
    message = answer.json()["error"]["message"]
    assert "Connection reset by peer" in message, message
    assert "Connection reset by peer" in json.loads(lines[0])["error"]


class SlowUpstream:
    """Plain HTTP on 127.0.0.1: sends the head and a first chunk, then holds the rest back
    for good, reading until the gateway closes the connection (noted in ``closed``).

    It reads while it holds back: an upstream that only looked after sending the rest
    would see the close only then, and the test would time the gateway by its own wait.
    """

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(1)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.closed = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        conn, _ = self.sock.accept()
        conn.recv(65536)
        head = (
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
            b"transfer-encoding: chunked\r\n\r\n"
        )
        conn.sendall(head + b"6\r\nfirst\n\r\n")
        conn.settimeout(60)
        try:
            while conn.recv(1024):
                pass
            self.closed.set()
        except OSError:
            pass
        finally:
            conn.close()


def test_a_stream_passes_chunk_by_chunk_and_a_client_that_leaves_closes_upstream():
    upstream = SlowUpstream()
    session, lines = start({"ANTHROPIC_BASE_URL": upstream.url, "ANTHROPIC_API_KEY": REAL_KEY})
    try:
        url = session.engine_env["ANTHROPIC_BASE_URL"] + "/v1/messages"
        headers = {"x-api-key": session.engine_env["ANTHROPIC_API_KEY"]}
        with httpx.stream("POST", url, json=BODY, headers=headers, timeout=30) as answer:
            chunks = answer.iter_raw()
            # The first chunk arrives while the upstream still holds the rest back: nothing
            # buffers the stream.
            assert next(chunks) == b"first\n"
        # The client left mid-stream: the gateway closes its upstream connection.
        assert upstream.closed.wait(20)
    finally:
        session.close()
    assert json.loads(lines[0])["error"] == "client_closed"
