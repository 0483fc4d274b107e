"""The host's end of the room's network: the egress proxy and the model endpoint's bridge.

The room has no route out. Two Unix sockets, mounted into it, are its only ways out, and both
end here, on one asyncio loop in a thread of ``holon-agent``:

- the **bridge** carries every connection to the model endpoint the engine was given (the
  gateway, or the model API itself when the gateway is off) and nowhere else;
- the **egress proxy** speaks HTTP ``CONNECT`` and absolute-URI HTTP, lets through only what
  the run's :class:`~holon_core.sandbox.policy.NetworkPolicy` allows, never dials a name that
  resolves to a loopback, private or metadata address, and records **every** attempt, allowed
  or denied, as one line of ``evidence/network.ndjson`` (time, host, port, method, allowed,
  why, bytes each way). A denial answers ``403`` with ``X-Holon-Proxy-Error`` saying why, so
  a tool that prints the response shows the reason.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from holon_core.sandbox.policy import NetworkPolicy, forbidden_address

_HEAD_LIMIT = 64 * 1024
_CHUNK = 1 << 16
_CONNECT_TIMEOUT = 10.0
_HOP_HEADERS = (b"proxy-connection", b"proxy-authorization", b"connection", b"keep-alive")


@dataclass(slots=True)
class Counts:
    allowed: int = 0
    denied: int = 0
    failed: int = 0
    hosts_denied: list[str] = field(default_factory=list)


class RoomNetwork:
    """The loop, its listeners and the record of attempts; ``start`` returns once listening."""

    def __init__(
        self,
        policy: NetworkPolicy,
        proxy_socket: str,
        bridges: dict[str, tuple[str, int]],
        record: Callable[[str], None],
        *,
        clock_zero: float | None = None,
    ) -> None:
        self.policy = policy
        #: The run's start on the monotonic clock: each line's ``ts`` is then on the clock of
        #: ``events.ndjson`` (seconds since the run started), which ties it to a tool call.
        self.clock_zero = clock_zero
        self.proxy_socket = proxy_socket
        self.bridges = bridges
        self._record = record
        self.counts = Counts()
        self._loop = asyncio.new_event_loop()
        self._servers: list[asyncio.AbstractServer] = []
        self._thread = threading.Thread(target=self._loop.run_forever, name="holon-room-net")
        self._thread.daemon = True

    def start(self) -> None:
        self._thread.start()
        future = asyncio.run_coroutine_threadsafe(self._listen(), self._loop)
        future.result(timeout=10)

    def stop(self) -> None:
        if not self._thread.is_alive():
            return

        async def close() -> None:
            for server in self._servers:
                server.close()
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            if tasks:  # a connection the engine's last tool left: a moment to end and record
                _, tasks_left = await asyncio.wait(tasks, timeout=1.0)
                tasks = list(tasks_left)
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(close(), self._loop).result(timeout=5)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)
        if not self._thread.is_alive():
            self._loop.close()

    async def _listen(self) -> None:
        self._servers.append(await _unix_server(self._proxy, self.proxy_socket))
        for path, target in self.bridges.items():

            async def bridge(
                reader: asyncio.StreamReader,
                writer: asyncio.StreamWriter,
                target: tuple[str, int] = target,
            ) -> None:
                await self._bridge(reader, writer, target)

            self._servers.append(await _unix_server(bridge, path))

    async def _bridge(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, target: tuple[str, int]
    ) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(*target)
        except OSError:
            writer.close()
            return
        _nodelay(up_writer)
        await _splice(reader, writer, up_reader, up_writer)

    async def _proxy(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        started = time.monotonic()
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.LimitOverrunError, asyncio.IncompleteReadError, OSError):
            writer.close()
            return
        if len(head) > _HEAD_LIMIT:
            await _refuse(writer, 431, "request head too large")
            return
        attempt = _parse(head)
        if attempt is None:
            refused = {"method": None, "allowed": False, "why": "not an HTTP proxy request"}
            self._write(refused, started)
            self.counts.denied += 1
            await _refuse(writer, 400, "not an HTTP proxy request")
            return
        method, host, port, forward = attempt
        entry: dict[str, Any] = {"method": method, "host": host, "port": port}
        address, why = await self._decide(host, port)
        if address is None:
            self.counts.denied += 1
            if host not in self.counts.hosts_denied:
                self.counts.hosts_denied.append(host)
            self._write({**entry, "allowed": False, "why": why}, started)
            await _refuse(writer, 403, why)
            return
        try:
            up_reader, up_writer = await asyncio.wait_for(
                asyncio.open_connection(address, port), _CONNECT_TIMEOUT
            )
        except (OSError, TimeoutError) as exc:
            self.counts.failed += 1
            self._write({**entry, "allowed": True, "why": why, "error": f"connect: {exc}"}, started)
            await _refuse(writer, 502, f"cannot connect to {host}:{port}")
            return
        self.counts.allowed += 1
        if forward is None:
            writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        else:
            up_writer.write(forward)
        done: dict[str, Any] = {"allowed": True, "why": why, "address": address}
        try:
            sent, received = await _splice(reader, writer, up_reader, up_writer)
            done |= {"bytes_sent": sent, "bytes_received": received}
        except asyncio.CancelledError:
            done["error"] = "still open when the run ended"
            raise
        finally:
            done["seconds"] = round(time.monotonic() - started, 3)
            self._write({**entry, **done}, started)

    async def _decide(self, host: str, port: int) -> tuple[str | None, str]:
        rule = self.policy.allowed(host, port)
        if rule is None:
            return None, "not in the run's allowed hosts (--allow-host)"
        pinned = self.policy.pinned.get((host, port))
        if pinned is not None:
            return pinned, f"allowed by {rule}, pinned to {pinned}"
        if _is_literal(host):
            return host, f"allowed by {rule} (an address named explicitly)"
        try:
            infos = await asyncio.get_running_loop().getaddrinfo(
                host, port, type=socket.SOCK_STREAM
            )
        except OSError as exc:
            return None, f"{host} does not resolve: {exc}"
        addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
        for address in addresses:
            bad = forbidden_address(address)
            if bad is not None:
                return None, f"{host} resolves to a {bad}, which the room never dials"
        return addresses[0], f"allowed by {rule}"

    def _write(self, entry: dict[str, Any], started: float) -> None:
        line: dict[str, Any] = {"time": datetime.now(UTC).isoformat(timespec="milliseconds")}
        if self.clock_zero is not None:
            line["ts"] = round(started - self.clock_zero, 3)
        line |= entry
        with contextlib.suppress(Exception):
            self._record(json.dumps(line, sort_keys=False))


async def _unix_server(
    handler: Callable[[asyncio.StreamReader, asyncio.StreamWriter], Any], path: str
) -> asyncio.AbstractServer:
    """A Unix socket server at ``path``, however long: a socket path holds 107 bytes, and a
    run's temp dir (a Ray worker's scratch dir, say) can use most of that up, so a long one
    is bound through ``/proc/self/fd`` of its directory."""
    if len(path.encode()) < 100:
        return await asyncio.start_unix_server(handler, path)
    directory = os.open(Path(path).parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.bind(f"/proc/self/fd/{directory}/{Path(path).name}")
    finally:
        os.close(directory)
    return await asyncio.start_unix_server(handler, sock=sock)


def _parse(head: bytes) -> tuple[str, str, int, bytes | None] | None:
    """(method, host, port, the request to send on: None for CONNECT), or None."""
    line, _, rest = head.partition(b"\r\n")
    parts = line.split(b" ")
    if len(parts) != 3:
        return None
    method, target, version = (p.decode("latin-1") for p in parts)
    if method == "CONNECT":
        host, _, port = target.rpartition(":")
        host = host.strip("[]").lower()
        if not host or not port.isdigit():
            return None
        return method, host, int(port), None
    if not target.lower().startswith("http://"):
        return None
    try:
        url = urlsplit(target)
        name, number = url.hostname, url.port or 80
    except ValueError:
        return None
    if not name:
        return None
    path = url.path or "/"
    if url.query:
        path += "?" + url.query
    headers = [
        h
        for h in rest.split(b"\r\n")
        if h and h.split(b":", 1)[0].strip().lower() not in _HOP_HEADERS
    ]
    request = f"{method} {path} {version}\r\n".encode("latin-1")
    request += b"".join(h + b"\r\n" for h in headers) + b"Connection: close\r\n\r\n"
    return method, name.lower(), number, request


def _is_literal(host: str) -> bool:
    try:
        socket.inet_pton(socket.AF_INET6 if ":" in host else socket.AF_INET, host)
    except OSError:
        return False
    return True


def _nodelay(writer: asyncio.StreamWriter) -> None:
    sock = writer.get_extra_info("socket")
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


async def _refuse(writer: asyncio.StreamWriter, status: int, why: str) -> None:
    body = f"holon sandbox: {why}\n".encode()
    reason = {400: "Bad Request", 403: "Forbidden", 431: "Too Large", 502: "Bad Gateway"}[status]
    header = why.encode("ascii", "replace").replace(b"\r", b" ").replace(b"\n", b" ")
    writer.write(
        f"HTTP/1.1 {status} {reason}\r\n".encode()
        + b"X-Holon-Proxy-Error: "
        + header
        + f"\r\nContent-Type: text/plain\r\nContent-Length: {len(body)}\r\n"
        "Connection: close\r\n\r\n".encode()
        + body
    )
    with contextlib.suppress(OSError):
        await writer.drain()
    writer.close()


async def _splice(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    up_reader: asyncio.StreamReader,
    up_writer: asyncio.StreamWriter,
) -> tuple[int, int]:
    """Copy both ways until both ends are done; the bytes (to the upstream, from it)."""

    async def pump(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> int:
        moved = 0
        try:
            while data := await source.read(_CHUNK):
                moved += len(data)
                sink.write(data)
                await sink.drain()
        except (OSError, asyncio.IncompleteReadError):
            pass
        finally:
            with contextlib.suppress(OSError):
                if sink.can_write_eof():
                    sink.write_eof()
        return moved

    sent, received = await asyncio.gather(pump(reader, up_writer), pump(up_reader, writer))
    for end in (writer, up_writer):
        end.close()
    return sent, received
