"""``ScriptedProvider``: the scripted model server on 127.0.0.1, in its own thread.

Only failure gates keep state (how often each was served, per wire API), so ``reset()`` makes
a provider reusable across runs; everything else is derived from each request.
"""

from __future__ import annotations

import contextlib
import socket
import ssl
import threading
from http.server import ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

from holon_conformance.provider.apis import installed_adapters, wire_api
from holon_conformance.provider.handler import ProviderHandler
from holon_conformance.provider.recording import RecordedRequest, Recorder
from holon_conformance.provider.scenario import Scenario, Turn, load_scenario

if TYPE_CHECKING:
    from pathlib import Path
    from types import TracebackType

HOST = "127.0.0.1"


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    #: socketserver's default backlog (5) drops connections when many streams start at once.
    request_queue_size = 128
    provider: ScriptedProvider

    def get_request(self) -> tuple[socket.socket, Any]:
        conn, addr = super().get_request()
        tls = self.provider.ssl_context
        if tls is not None:  # the handshake happens in the handler's thread (handler.setup)
            conn = tls.wrap_socket(conn, server_side=True, do_handshake_on_connect=False)
        return conn, addr


class ScriptedProvider:
    """Serve ``scenario`` to any engine that connects; a context manager starts and stops it."""

    def __init__(
        self,
        scenario: Scenario | str | Path,
        *,
        port: int = 0,
        log_path: Path | None = None,
        workdir: str | None = None,
        ssl_context: ssl.SSLContext | None = None,
        api_key: str | None = None,
    ) -> None:
        """``ssl_context``: serve HTTPS with it (e.g. a ``trustme`` test CA's server
        certificate); ``api_key``: answer 401 to a request that does not carry exactly this
        credential (a model gateway's tests prove the real key arrives)."""
        self.ssl_context = ssl_context
        self.api_key = api_key
        self.scenario = scenario if isinstance(scenario, Scenario) else load_scenario(scenario)
        self.recorder = Recorder(log_path)
        self.workdir = workdir
        self.stopping = threading.Event()
        self._port = port
        self._lock = threading.Lock()
        self._served: dict[tuple[str, int], int] = {}
        self._connections: set[socket.socket] = set()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # --- lifecycle ------------------------------------------------------------------------

    def start(self) -> ScriptedProvider:
        if self._server is not None:
            return self
        self.stopping.clear()
        server = _Server((HOST, self._port), ProviderHandler)
        server.provider = self
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="holon-scripted-provider",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving: releases stalls and delays, closes open connections, joins the thread."""
        server = self._server
        if server is None:
            return
        self.stopping.set()
        server.shutdown()
        with self._lock:
            connections = list(self._connections)
        for conn in connections:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._server = None
        self._thread = None

    def __enter__(self) -> ScriptedProvider:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # --- public API -----------------------------------------------------------------------

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("the scripted provider is not running; call start() first")
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        scheme = "https" if self.ssl_context is not None else "http"
        return f"{scheme}://{HOST}:{self.port}"

    @property
    def requests(self) -> list[RecordedRequest]:
        """A snapshot of every request so far, in arrival order."""
        return self.recorder.snapshot()

    def turn_requests(self, engine: str | None = None) -> list[RecordedRequest]:
        """Only the model turns (no side calls, counts or model lists).

        ``engine`` (an installed engine's name or a wire API) keeps the turns of the wire API
        it speaks: engines sharing one API are told apart by running one at a time.
        """
        api = None if engine is None else wire_api(engine)
        return [r for r in self.requests if r.kind == "turn" and api in (None, r.api)]

    def engine_env(self, engine: str) -> dict[str, str]:
        """Endpoint and fake credential variables that point ``engine`` at this provider.

        Asked of the installed adapter (``EngineAdapter.endpoint_env``), so any engine a
        plugin adds can be pointed here. An engine that ignores its endpoint variable with an
        API key may need more (see :mod:`holon_conformance.direct`).
        """
        found = installed_adapters().get_engine(engine).endpoint_env(self.url)
        if not found:
            raise ValueError(f"adapter {engine!r} has no endpoint_env(): it cannot be pointed here")
        return found

    def set_scenario(self, scenario: Scenario | str | Path) -> None:
        """Replay another scenario from now on (gate counters start over)."""
        loaded = scenario if isinstance(scenario, Scenario) else load_scenario(scenario)
        with self._lock:
            self.scenario = loaded
            self._served.clear()

    def reset(self) -> None:
        """Forget recorded requests and how often each failure gate was served."""
        with self._lock:
            self._served.clear()
        self.recorder.clear()

    # --- used by the handler --------------------------------------------------------------

    def _next(self, api: str, tool_calls: int) -> tuple[Turn, Turn | None]:
        """The action for this turn, and the failure gate to serve instead (if any is due)."""
        with self._lock:
            slot = self.scenario.slot_for(tool_calls)
            for index, gate in slot.gates:
                key = (api, index)
                served = self._served.get(key, 0)
                if gate.times is None or served < gate.times:
                    self._served[key] = served + 1
                    return slot.turn, gate
            return slot.turn, None

    def _track(self, conn: socket.socket, *, add: bool) -> None:
        with self._lock:
            if add:
                self._connections.add(conn)
            else:
                self._connections.discard(conn)
