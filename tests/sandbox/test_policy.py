"""The room's network policy and its egress proxy, in process (no engine, no room): which
entries parse, which addresses are never dialled, and what the proxy answers and records."""

from __future__ import annotations

import http.server
import json
import os
import socket
import threading
from pathlib import Path

import pytest

from holon_core.sandbox.policy import (
    AllowRule,
    NetworkPolicy,
    PolicyError,
    forbidden_address,
    network_policy,
    parse_rule,
)
from holon_core.sandbox.proxy import RoomNetwork


@pytest.mark.parametrize(
    ("entry", "rule"),
    [
        ("registry.npmjs.org:443", AllowRule("registry.npmjs.org", 443)),
        ("PyPI.org", AllowRule("pypi.org", None)),
        ("*.githubusercontent.com", AllowRule("*.githubusercontent.com", None)),
        ("10.0.0.5:8080", AllowRule("10.0.0.5", 8080)),
        ("[::1]:8443", AllowRule("::1", 8443)),
    ],
)
def test_allow_entries_parse(entry: str, rule: AllowRule) -> None:
    assert parse_rule(entry) == rule


@pytest.mark.parametrize("entry", ["https://example.com/", "host:0", "host:99999", "a b", "-x"])
def test_a_malformed_entry_is_refused_naming_the_forms(entry: str) -> None:
    with pytest.raises(PolicyError, match="HOST:PORT"):
        parse_rule(entry)


def test_wildcards_match_subdomains_only_and_ports_exactly() -> None:
    policy = network_policy({"HOLON_ALLOW_HOSTS": "*.example.com, api.test:443"})
    assert policy.allowed("a.example.com", 80) is not None
    assert policy.allowed("example.com", 80) is None
    assert policy.allowed("api.test", 443) is not None
    assert policy.allowed("api.test", 80) is None


@pytest.mark.parametrize(
    "address", ["127.0.0.1", "10.1.2.3", "192.168.0.1", "169.254.169.254", "::1", "0.0.0.0"]
)
def test_addresses_never_dialled_for_a_name(address: str) -> None:
    assert forbidden_address(address) is not None


def test_a_public_address_is_dialled() -> None:
    assert forbidden_address("93.184.215.14") is None


def _ask(sock_path: str, request: bytes) -> bytes:
    """One request, the whole answer; a long path is reached through its directory's fd."""
    directory = os.open(Path(sock_path).parent, os.O_RDONLY | os.O_DIRECTORY)
    with socket.socket(socket.AF_UNIX) as client:
        client.connect(f"/proc/self/fd/{directory}/{Path(sock_path).name}")
        os.close(directory)
        client.sendall(request)
        chunks = []
        while data := client.recv(65536):
            chunks.append(data)
    return b"".join(chunks)


class _Hello(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b"hello through the proxy\n"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def test_the_proxy_denies_records_and_lets_an_allowed_host_through(tmp_path: Path) -> None:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Hello)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = int(server.server_address[1])
    lines: list[str] = []
    policy = NetworkPolicy(
        (AllowRule("pinned.test", port), AllowRule("localhost", None)),
        {("pinned.test", port): "127.0.0.1"},
    )
    # a path longer than a socket path may be: bound through /proc/self/fd
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True)
    network = RoomNetwork(policy, str(deep / "proxy.sock"), {}, lines.append)
    network.start()
    try:
        target = str(deep / "proxy.sock")
        denied = _ask(target, b"CONNECT evil.test:443 HTTP/1.1\r\nHost: evil.test\r\n\r\n")
        assert denied.startswith(b"HTTP/1.1 403") and b"X-Holon-Proxy-Error" in denied
        loopback = _ask(target, f"GET http://localhost:{port}/ HTTP/1.1\r\n\r\n".encode())
        assert loopback.startswith(b"HTTP/1.1 403") and b"loopback" in loopback
        allowed = _ask(
            target,
            f"GET http://pinned.test:{port}/x HTTP/1.1\r\nHost: pinned.test\r\n\r\n".encode(),
        )
        assert allowed.startswith(b"HTTP/1.0 200") and b"hello through the proxy" in allowed
    finally:
        network.stop()
        server.shutdown()
        server.server_close()
    records = [json.loads(line) for line in lines]
    assert [(r["host"], r["allowed"]) for r in records] == [
        ("evil.test", False),
        ("localhost", False),
        ("pinned.test", True),
    ]
    assert "allowed hosts" in records[0]["why"] and "loopback" in records[1]["why"]
    assert records[2]["bytes_received"] > 0 and records[2]["address"] == "127.0.0.1"
    assert network.counts.denied == 2 and network.counts.allowed == 1
