"""The gateway reaches its upstream through the proxy the run's environment names
(``HTTPS_PROXY`` / ``HTTP_PROXY`` / ``ALL_PROXY``, ``NO_PROXY`` honoured), as the engine would
have without holon: corporate networks keep working. The proxy here is a real HTTP CONNECT
tunnel on 127.0.0.1 that records what it was asked to reach."""

from __future__ import annotations

import contextlib
import socket
import socketserver
import threading
from collections.abc import Iterator

import httpx
import pytest

from holon_core.gateway.session import open_gateway

from .kit import REAL_KEY, WireAdapter

BODY = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 100,
    "messages": [{"role": "user", "content": "hi"}],
}


class _Tunnel(socketserver.BaseRequestHandler):
    def handle(self) -> None:
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.request.recv(4096)
            if not chunk:
                return
            head += chunk
        method, target, _ = head.split(b"\r\n", 1)[0].decode().split(" ", 2)
        self.server.targets.append(f"{method} {target}")  # type: ignore[attr-defined]
        host, port = target.rsplit(":", 1)
        upstream = socket.create_connection((host, int(port)))
        self.request.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
        pipes = [
            threading.Thread(target=_pipe, args=(self.request, upstream), daemon=True),
            threading.Thread(target=_pipe, args=(upstream, self.request), daemon=True),
        ]
        for pipe in pipes:
            pipe.start()
        for pipe in pipes:
            pipe.join()


def _pipe(source: socket.socket, sink: socket.socket) -> None:
    try:
        while data := source.recv(65536):
            sink.sendall(data)
    except OSError:
        pass
    finally:
        for end in (source, sink):
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)


@pytest.fixture
def tunnel() -> Iterator[tuple[str, list[str]]]:
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _Tunnel)
    server.daemon_threads = True
    server.targets = []  # type: ignore[attr-defined]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", server.targets  # type: ignore[attr-defined]
    finally:
        server.shutdown()
        server.server_close()


def _call(env: dict[str, str]) -> httpx.Response:
    session = open_gateway(WireAdapter(), env, lambda line: None)
    assert session is not None and session.server is not None
    try:
        url = session.engine_env["ANTHROPIC_BASE_URL"] + "/v1/messages"
        headers = {"x-api-key": session.engine_env["ANTHROPIC_API_KEY"], "anthropic-version": "1"}
        return httpx.post(url, json=BODY, headers=headers, timeout=30, trust_env=False)
    finally:
        session.close()


def test_the_upstream_is_reached_through_the_environments_https_proxy(
    https_provider, ca_file, tunnel
):
    proxy, targets = tunnel
    server = https_provider("final-only")
    env = {"ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": REAL_KEY}
    env |= {"SSL_CERT_FILE": str(ca_file), "HTTPS_PROXY": proxy}
    answer = _call(env)
    assert answer.status_code == 200, answer.text
    authority = server.url.split("://", 1)[1].rstrip("/")
    assert targets == [f"CONNECT {authority}"]
    assert [r.served for r in server.requests] == ["reply"]


def test_no_proxy_sends_the_upstream_call_direct(https_provider, ca_file, tunnel):
    proxy, targets = tunnel
    server = https_provider("final-only")
    env = {"ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": REAL_KEY}
    env |= {"SSL_CERT_FILE": str(ca_file), "https_proxy": proxy, "NO_PROXY": "127.0.0.1"}
    answer = _call(env)
    assert answer.status_code == 200, answer.text
    assert targets == []


@pytest.mark.parametrize(
    ("no_proxy", "bypassed"),
    [
        ("", False),
        ("*", True),
        ("example.com", True),
        (".example.com", True),
        ("other.com, api.example.com", True),
        ("ample.com", False),
        ("api.example.com:443", True),
        ("api.example.com:8443", False),
    ],
)
def test_no_proxy_is_matched_as_curl_does(no_proxy, bypassed):
    from holon_core.gateway.upstream_proxy import proxy_for

    env = {"HTTPS_PROXY": "http://proxy:3128", "https_proxy": "http://lower:3128"}
    env["no_proxy"] = no_proxy
    chosen = proxy_for("https://api.example.com/v1", env)
    assert chosen == (None if bypassed else "http://lower:3128")
