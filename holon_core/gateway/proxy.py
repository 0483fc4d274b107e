"""The gateway's ASGI app: one request in, one upstream request out, the answer streamed back.

Raw ASGI (no routing: every path is forwarded) so nothing buffers the stream: each chunk
httpx reads from upstream is sent to the engine as it arrives, and a task watching for the
client's disconnect cancels the upstream request when the engine goes away. Status codes,
headers (retry ones included) and error bodies pass unchanged; only hop-by-hop headers are
dropped and the credential is swapped (:mod:`holon_core.gateway.credentials`).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qsl, urlencode

import anyio
import httpx

from holon_core.gateway.apis import classify, error_body, path_model
from holon_core.gateway.clamp import OutputClamp
from holon_core.gateway.credentials import AUTH_HEADERS
from holon_core.gateway.leases import CURRENT as CURRENT_LEASE
from holon_core.gateway.leases import Lease, Leases
from holon_core.gateway.meter import CallRecord, now_iso, price_call
from holon_core.gateway.price_table import PriceTable
from holon_core.gateway.ratelimit import LIMIT_STATUSES, iso, reset_at
from holon_core.gateway.usage import UsageScanner

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

_HOP = frozenset(
    {
        b"host",
        b"connection",
        b"keep-alive",
        b"transfer-encoding",
        b"te",
        b"trailer",
        b"upgrade",
        b"proxy-authorization",
        b"proxy-authenticate",
        b"proxy-connection",
        b"content-length",
        b"accept-encoding",
    }
)
_HOP_OUT = frozenset(
    {b"connection", b"keep-alive", b"transfer-encoding", b"te", b"trailer", b"upgrade"}
)


@dataclass(frozen=True)
class Route:
    """Where calls go: the engine sees ``prefix`` (e.g. ``/v1``) where the upstream has
    ``upstream`` (e.g. ``https://corp.example/openai/v1``)."""

    api: str
    upstream: str
    prefix: str = ""

    def target(self, path: str) -> str:
        rest = path[len(self.prefix) :] if self.prefix and path.startswith(self.prefix) else path
        return self.upstream.rstrip("/") + rest


class GatewayApp:
    """Forwards the calls of the runs holding a lease (:mod:`holon_core.gateway.leases`)."""

    def __init__(self, route: Route, leases: Leases, table: PriceTable | None = None) -> None:
        self.route = route
        self.table = table
        self.leases = leases
        self.clamp = OutputClamp(table)
        self.client: httpx.AsyncClient | None = None
        self.make_client: Callable[[], httpx.AsyncClient] | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        if scope["type"] != "http":  # WebSocket upgrades: engines fall back to HTTP
            return
        await self._http(scope, receive, send)

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = time.perf_counter()
        body = await _read_body(receive)
        method: str = scope["method"]
        path: str = scope["path"]
        api, kind = classify(self.route.api, method, path)
        headers, by_header = self._headers(scope["headers"])
        query, by_query = self._query(scope.get("query_string", b""))
        lease = by_header or by_query
        if headers is None or query is None or lease is None or by_query not in (None, lease):
            message = "holon gateway: this endpoint takes only the run's own credential"
            await _answer(send, 403, error_body(api, 403, message))
            return
        meter, budget = lease.meter, lease.budget
        CURRENT_LEASE.set(lease)  # read by a cassette recorder below the client
        url = self.route.target(path) + (f"?{query}" if query else "")
        key = hash(body)
        record = _Call(api, kind, method, path, meter.attempt(path, key), started)
        refused = budget.admit() if budget is not None and kind == "model" else None
        if refused is not None:  # a client error the engines do not retry
            message = f"holon: the run's budget is spent ({refused}); the run ends here"
            record.status, record.error = 400, "budget_exceeded"
            await _answer(send, 400, error_body(api, 400, message))
            meter.add(record.finish(_body_model(body) or path_model(path), None, None), key)
            return
        if budget is not None and kind == "model":  # the output this call may still buy
            body, record.clamped_to = self.clamp.apply(api, body, path, budget)
        if self.client is None:
            assert self.make_client is not None
            self.client = self.make_client()
        request = self.client.build_request(method, url, headers=headers, content=body)
        stream = b'"stream":true' in body or b'"stream": true' in body or "stream" in path
        stream = stream or "alt=sse" in query or api == "openai-responses"
        scanner = UsageScanner(api, stream=stream)
        await self._relay(request, receive, send, scanner, record)
        usage = scanner.result()
        model = usage.model or path_model(path) or (_body_model(body) if kind == "model" else None)
        cost = price_call(api, model, usage.tokens, self.table) if kind == "model" else None
        if budget is not None and kind == "model":
            budget.settle(usage.tokens, cost, model)
        meter.add(record.finish(model, usage.tokens if kind == "model" else None, cost), key)

    async def _relay(
        self,
        request: httpx.Request,
        receive: Receive,
        send: Send,
        scanner: UsageScanner,
        record: _Call,
    ) -> None:
        """Forward while watching the client: when it leaves, the upstream call is closed."""
        disconnected = False
        async with anyio.create_task_group() as group:

            async def watch() -> None:
                nonlocal disconnected
                while (await receive())["type"] != "http.disconnect":
                    pass
                disconnected = True
                group.cancel_scope.cancel()

            group.start_soon(watch)
            try:
                await self._forward(request, send, scanner, record)
            finally:
                group.cancel_scope.cancel()
        if disconnected and record.error is None and not record.done:
            record.error = "client_closed"

    async def _forward(
        self, request: httpx.Request, send: Send, scanner: UsageScanner, record: _Call
    ) -> None:
        assert self.client is not None
        try:
            response = await self.client.send(request, stream=True)
        except httpx.HTTPError as exc:
            record.error = f"upstream_error: {why(exc)}"[:300]
            record.status = 502
            where = request.url.copy_with(query=None)  # never the real key of a key= query
            message = f"holon gateway: cannot reach the model API at {where} ({why(exc)})"
            await _answer(send, 502, error_body(record.api, 502, message))
            return
        try:
            record.status = response.status_code
            record.retry_after = response.headers.get("retry-after")
            if response.status_code in LIMIT_STATUSES:
                when = reset_at(response.headers.items(), datetime.now(UTC))
                record.reset_at = None if when is None else iso(when)
            out = [(k, v) for k, v in response.headers.raw if k.lower() not in _HOP_OUT]
            await send(
                {"type": "http.response.start", "status": response.status_code, "headers": out}
            )
            async for chunk in response.aiter_raw():
                if record.first_byte is None:
                    record.first_byte = time.perf_counter()
                scanner.feed(chunk)
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
            record.done = True
        except httpx.HTTPError as exc:
            record.error = f"upstream_error: {why(exc)}"[:300]
        finally:
            with anyio.CancelScope(shield=True):
                await response.aclose()

    def _headers(
        self, raw: list[tuple[bytes, bytes]]
    ) -> tuple[list[tuple[bytes, bytes]] | None, Lease | None]:
        """Forwarded headers with the real credential (None: a foreign one, or placeholders
        of two runs), and the lease whose placeholder was there."""
        out: list[tuple[bytes, bytes]] = [(b"accept-encoding", b"identity")]
        lease: Lease | None = None
        for name, value in raw:
            lower = name.lower()
            if lower in _HOP:
                continue
            if lower in AUTH_HEADERS:
                found = self.leases.swap_header(value.decode("latin-1"))
                if found is None or lease not in (None, found[1]):
                    return None, None
                lease = found[1]
                value = found[0].encode("latin-1")
            out.append((name, value))
        return out, lease

    def _query(self, raw: bytes) -> tuple[str | None, Lease | None]:
        """The query with ``key=`` swapped (None: a foreign key), and the lease whose it was."""
        if not raw:
            return "", None
        pairs = parse_qsl(raw.decode("latin-1"), keep_blank_values=True)
        if not any(name == "key" for name, _ in pairs):
            return raw.decode("latin-1"), None
        found = self.leases.swap_query(pairs)
        return (None, None) if found is None else (urlencode(found[0]), found[1])


@dataclass
class _Call:
    api: str
    kind: str
    method: str
    path: str
    attempt: int
    started: float
    status: int | None = None
    first_byte: float | None = None
    error: str | None = None
    retry_after: str | None = None
    reset_at: str | None = None
    clamped_to: int | None = None
    done: bool = False

    def finish(self, model: str | None, tokens: Any, cost: float | None) -> CallRecord:
        end = time.perf_counter()
        first = (
            None if self.first_byte is None else round((self.first_byte - self.started) * 1e3, 3)
        )
        return CallRecord(
            time=now_iso(),
            api=self.api,
            kind=self.kind,
            method=self.method,
            path=self.path,
            model=model,
            status=self.status,
            attempt=self.attempt,
            first_byte_ms=first,
            total_ms=round((end - self.started) * 1e3, 3),
            tokens=tokens,
            cost_usd=cost,
            error=self.error,
            retry_after=self.retry_after,
            reset_at=self.reset_at,
            clamped_to=self.clamped_to,
        )


async def _read_body(receive: Receive) -> bytes:
    parts = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        parts.append(message.get("body", b""))
        if not message.get("more_body"):
            break
    return b"".join(parts)


async def _answer(send: Send, status: int, body: bytes) -> None:
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if status in (400, 403):
        headers.append((b"x-should-retry", b"false"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})


async def _lifespan(receive: Receive, send: Send) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


def _body_model(body: bytes) -> str | None:
    import json

    try:
        data = json.loads(body)
    except ValueError:
        return None
    model = data.get("model") if isinstance(data, dict) else None
    return model if isinstance(model, str) else None


def why(exc: BaseException) -> str:
    """``ReadError: [Errno 104] Connection reset by peer``: httpx's error names the step
    (connect, read, write) and, through anyio, often has an empty message; the OS error
    under it says what happened, so the chain is followed to the first one that has words."""
    chain: list[BaseException] = [exc]
    cause = exc.__cause__ or exc.__context__
    while cause is not None and len(chain) < 6:  # httpx <- httpcore <- anyio <- the OS error
        chain.append(cause)
        cause = cause.__cause__ or cause.__context__
    said = next((str(e) for e in chain if str(e)), "")
    names = " <- ".join(type(e).__name__ for e in chain[1:] if not str(e))
    return f"{type(exc).__name__}: {said or names or 'no detail given'}"
