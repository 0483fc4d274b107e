"""The room case's host side (docs/sandbox.md): what the escape step tries to reach.

Before the ``room`` case's run the harness plants a key in the sentinel HOME holon-agent
is given (the user's home, from holon-agent's side: the engine gets a run-local one) and in a
sibling directory next to the workspace, opens a TCP listener on the host's loopback that
counts who connects, and serves HTTP on the loopback under a name the egress proxy resolves
and allows (``HOLON_SANDBOX_RESOLVE``, ``HOLON_ALLOW_HOSTS``). The case's one shell step
tries every way out; each attempt prints ``NAME-failed`` when it fails, and none of those
words is spelled out in the command text (``printf '%s-failed\\n' NAME``), so a model reading
the command back cannot pass a check. Checks: :mod:`room`.
"""

from __future__ import annotations

import http.server
import json
import secrets
import socket
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ALLOWED_NAME = "allowed.holon-conformance.example"
DENIED_NAME = "denied.holon-conformance.example"
#: What the allowed host answers (never in the command text).
ALLOWED_BODY = "allowed-host-answered"
#: The step's last line, printed once every attempt is behind it.
DONE = "room-escape-done"
#: Markers of attempts that must fail, per row (each printed as ``NAME-failed``).
HOME_ATTEMPTS = ("read-home", "list-home", "read-sibling")
CONNECT_ATTEMPTS = ("curl", "python", "devtcp")
#: Placeholders of the case's command, filled by :meth:`RoomEscape.fill`.
PLACEHOLDERS = ("home", "sibling", "outside", "port", "allowed_port")


def _escape_commands() -> list[str]:
    """The escape, one command each, with ``{room_NAME}`` placeholders (``PLACEHOLDERS``)."""
    port = "{room_port}"
    return [
        "cat {room_home}/.ssh/id_ed25519 || printf '%s-failed\\n' read-home",
        "ls -a {room_home} || printf '%s-failed\\n' list-home",
        "cat {room_sibling}/secret.txt || printf '%s-failed\\n' read-sibling",
        "echo pwned > {room_home}/pwned || printf '%s-failed\\n' write-home",
        "echo pwned > {room_outside}/pwned || printf '%s-failed\\n' write-outside",
        f"curl -sS -m 5 --noproxy '*' http://127.0.0.1:{port}/ || printf '%s-failed\\n' curl",
        f"python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), 5)\""
        " || printf '%s-failed\\n' python",
        f"bash -c 'exec 3<>/dev/tcp/127.0.0.1/{port}' || printf '%s-failed\\n' devtcp",
        f"node -e \"fetch('http://127.0.0.1:{port}/')"
        ".then(() => console.log('node-' + 'reached'),"
        " () => console.log('node-' + 'failed'))\"",
        f"curl -fsS -m 10 http://{DENIED_NAME}/ || printf '%s-failed\\n' denied-host",
        f"curl -sS -m 10 http://{ALLOWED_NAME}:{{room_allowed_port}}/",
        "printf '%s-%s\\n' room-escape done",
    ]


#: The case's one shell step (its placeholders filled per run).
COMMAND = "; ".join(_escape_commands())


@dataclass
class _Listener:
    """A TCP listener on 127.0.0.1 counting connections: a host service the room must not
    reach."""

    sock: socket.socket
    accepted: int = 0
    #: Kept from the start: a closed socket has no name.
    port: int = field(init=False)

    def __post_init__(self) -> None:
        self.port = int(self.sock.getsockname()[1])

    def serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted += 1
            conn.close()


class _AllowedHandler(http.server.BaseHTTPRequestHandler):
    server: _AllowedServer

    def do_GET(self) -> None:
        self.server.hits += 1
        body = f"{ALLOWED_BODY}\n".encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


class _AllowedServer(http.server.ThreadingHTTPServer):
    daemon_threads = True
    hits = 0

    @property
    def port(self) -> int:
        return int(self.server_address[1])


@dataclass
class RoomEscape:
    """One room run's host side: the planted key, the paths, the two servers."""

    secret: str
    home: Path
    sibling: Path
    outside: Path
    planted: list[Path]
    _listener: _Listener
    _allowed: _AllowedServer
    #: Counts once the run is over (:meth:`close`).
    connections: int = 0
    allowed_hits: int = 0
    _closed: bool = field(default=False, repr=False)

    @property
    def port(self) -> int:
        return self._listener.port

    @property
    def allowed_port(self) -> int:
        return self._allowed.port

    @property
    def accepted(self) -> int:
        """Connections the loopback listener took so far (:attr:`connections` once closed)."""
        return self._listener.accepted

    def commands(self) -> list[str]:
        """The escape as plain shell commands, one each, placeholders filled (for an engine
        that runs steps one by one, as the replay engine's script does)."""
        return [self._filled(command, in_json=False) for command in _escape_commands()]

    @property
    def write_targets(self) -> list[Path]:
        return [self.home / "pwned", self.outside / "pwned"]

    def env(self) -> dict[str, str]:
        """holon-agent's settings for the run: the one host it allows, pinned to the server."""
        return {
            "HOLON_ALLOW_HOSTS": f"{ALLOWED_NAME}:{self.allowed_port}",
            "HOLON_SANDBOX_RESOLVE": f"{ALLOWED_NAME}:{self.allowed_port}:127.0.0.1",
        }

    def fill(self, script: str) -> str:
        """A case's script (JSON text) with the ``{room_NAME}`` placeholders filled."""
        return self._filled(script, in_json=True)

    def _filled(self, text: str, *, in_json: bool) -> str:
        """``text`` with each ``{room_NAME}`` replaced by its value (escaped for a JSON string
        when ``in_json``)."""
        values = {
            "home": str(self.home),
            "sibling": str(self.sibling),
            "outside": str(self.outside),
            "port": str(self.port),
            "allowed_port": str(self.allowed_port),
        }
        for name, value in values.items():
            text = text.replace(
                "{room_" + name + "}", json.dumps(value)[1:-1] if in_json else value
            )
        return text

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._listener.sock.close()
        self._allowed.shutdown()
        self._allowed.server_close()
        self.connections = self._listener.accepted
        self.allowed_hits = self._allowed.hits


def open_escape(home: Path, workspace: Path) -> RoomEscape:
    """Plant the key in ``home`` and in a sibling of ``workspace``; start both servers."""
    secret = "HOLONHOMEKEY-" + secrets.token_hex(12)
    key = home / ".ssh" / "id_ed25519"
    key.parent.mkdir(parents=True, exist_ok=True)
    key.write_text(secret + "\n", encoding="utf-8")
    sibling = workspace.parent / "sibling-repo"
    sibling.mkdir()
    (sibling / "secret.txt").write_text(secret + "\n", encoding="utf-8")
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    listener = _Listener(sock)
    threading.Thread(target=listener.serve, daemon=True).start()
    allowed = _AllowedServer(("127.0.0.1", 0), _AllowedHandler)
    threading.Thread(target=allowed.serve_forever, daemon=True).start()
    planted = [key, sibling / "secret.txt"]
    return RoomEscape(secret, home, sibling, workspace.parent, planted, listener, allowed)
