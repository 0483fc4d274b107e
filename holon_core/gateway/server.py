"""The gateway's server: uvicorn on 127.0.0.1 (a free port), in a thread with its own loop.

The upstream client is httpx with the caller's trust settings: ``SSL_CERT_FILE`` and
``SSL_CERT_DIR`` from the run's environment when set (else the system store, else certifi),
the proxy the run's usual variables name (:mod:`holon_core.gateway.upstream_proxy`), no read
timeout (a model may think long; holon's silence and wall timeouts bound the run), and
``Accept-Encoding: identity`` so usage can be read from the bytes passing through.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import ssl
import threading
from collections.abc import Callable, Mapping

import httpcore
import httpx
import uvicorn

from holon_core.gateway.proxy import GatewayApp
from holon_core.gateway.upstream_proxy import proxy_for

HOST = "127.0.0.1"
#: Wraps or replaces the upstream transport: cassette recording tees it, replay answers
#: instead of it (holon_core/cassette/). The proxy above it is the same in every mode.
TransportWrap = Callable[[httpx.AsyncBaseTransport], httpx.AsyncBaseTransport]


def ssl_context(env: Mapping[str, str]) -> ssl.SSLContext:
    cafile = env.get("SSL_CERT_FILE") or None
    capath = env.get("SSL_CERT_DIR") or None
    context = ssl.create_default_context(cafile=cafile, capath=capath)
    if cafile is None and capath is None and not context.get_ca_certs():
        with contextlib.suppress(ImportError, OSError):
            import certifi

            context.load_verify_locations(certifi.where())
    return context


def upstream_client(
    env: Mapping[str, str], upstream: str, wrap: TransportWrap | None = None
) -> httpx.AsyncClient:
    # TCP_NODELAY: httpx writes a request's head and body apart; with Nagle on, the body
    # waits for the ACK the upstream delays by up to 40 ms.
    nodelay = [(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)]
    # Reads of up to 256 KiB (httpcore: 64 KiB): a large stream then passes in fewer pieces,
    # each costing a pass through h11, anyio and the ASGI send (bench/gateway_overhead.py:
    # about a third more throughput on 50 MiB). A read returns what has arrived, so a small
    # event is not held back. Process-wide; the gateway is the process's only async client.
    httpcore.AsyncHTTP11Connection.READ_NUM_BYTES = 256 * 1024
    proxy = proxy_for(upstream, env)
    # Loading the trust store costs about 50 ms of CPU, and a plain-HTTP upstream reached
    # directly or through a plain-HTTP proxy (a local model server) has no TLS hop to verify:
    # the base URL is fixed and redirects are not followed, so no call can turn into HTTPS.
    tls = any(url.lower().startswith("https:") for url in (upstream, proxy or ""))
    context: ssl.SSLContext | bool = ssl_context(env) if tls else False
    transport: httpx.AsyncBaseTransport = httpx.AsyncHTTPTransport(
        verify=context, socket_options=nodelay, proxy=proxy
    )
    return httpx.AsyncClient(
        verify=context,
        trust_env=False,  # the proxy is chosen above, from the run's environment
        transport=transport if wrap is None else wrap(transport),
        timeout=httpx.Timeout(connect=30.0, read=None, write=60.0, pool=None),
        limits=httpx.Limits(max_connections=None, max_keepalive_connections=32),
        follow_redirects=False,
    )


class GatewayServer:
    """Start with :meth:`start` (returns once it listens), stop with :meth:`stop`."""

    def __init__(self, app: GatewayApp, env: Mapping[str, str]) -> None:
        self.app = app
        self.env = dict(env)
        #: Set before the first call (the client is made then): see :data:`TransportWrap`.
        self.wrap_transport: TransportWrap | None = None
        app.make_client = lambda: upstream_client(self.env, app.route.upstream, self.wrap_transport)
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # accepted ones too
        self._sock.bind((HOST, 0))
        self._sock.listen(128)
        self.port: int = self._sock.getsockname()[1]
        config = uvicorn.Config(
            app,
            lifespan="off",
            log_level="warning",
            access_log=False,
            server_header=False,
            date_header=False,
            timeout_keep_alive=30,
            timeout_graceful_shutdown=1,
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._run, name="holon-gateway", daemon=True)
        self.error: BaseException | None = None

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def _run(self) -> None:
        async def main() -> None:
            try:
                await self._server.serve(sockets=[self._sock])
            finally:
                if self.app.client is not None:
                    await self.app.client.aclose()

        try:
            asyncio.run(main())
        except BaseException as exc:  # recorded; the run reports what the engine saw
            self.error = exc

    def start(self) -> GatewayServer:
        self._thread.start()
        while not self._server.started and self._thread.is_alive():
            self._thread.join(0.005)
        if not self._server.started:
            raise RuntimeError(f"the model gateway did not start: {self.error!r}")
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)
        with contextlib.suppress(OSError):
            self._sock.close()
