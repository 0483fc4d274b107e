"""Recording: an httpx transport around the gateway's real one that tees every model call.

The gateway's proxy (:mod:`holon_core.gateway.proxy`) is unchanged: it builds the upstream
request (real key swapped in) and streams the answer to the engine chunk by chunk. This
transport sits under its client: it passes the request to the real transport, hands the
response back with a stream that yields each chunk *as it arrives* (never buffered on its way
to the engine) while noting it, and when that stream closes turns what it saw into one
:class:`~holon_core.cassette.format.RecordedCall`: allowlisted headers, the query without keys,
the request body, and the answer as its events with their time (``text/event-stream``) or its
exact bytes, every part scrubbed (:mod:`holon_core.cassette.scrub`) and packed into the body
store. A stream the engine left early is recorded as far as it got, ``error: client_closed``.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import httpx

from holon_core.cassette.format import (
    BodyStore,
    RecordedCall,
    StreamEvent,
    exact_body,
    pack_body,
    pack_event,
)
from holon_core.cassette.scrub import (
    REQUEST_HEADERS,
    RESPONSE_HEADERS,
    Scrubber,
    clean_query,
    keep_headers,
    split_secret,
)
from holon_core.gateway.apis import classify

_EVENT_END = (b"\n\n", b"\r\n\r\n")


class Recorder:
    """A run's recorded calls (thread-safe: the gateway serves calls concurrently).

    ``api``, ``upstream`` and ``prefix`` are the gateway's route: the engine sent ``prefix +
    rest`` where the upstream got ``upstream + rest``; the cassette keeps the engine's path,
    which does not depend on where the recording was sent.
    """

    def __init__(self, api: str, upstream: str, prefix: str, scrubber: Scrubber) -> None:
        self.api = api
        self.upstream_path = urlsplit(upstream).path.rstrip("/")
        self.prefix = prefix
        self.scrubber = scrubber
        self.store = BodyStore()
        self.calls: list[RecordedCall] = []
        self.part: str | None = None
        #: Names the part (serve turn) of the call being made, when a session is recorded.
        self.part_of: Callable[[], str | None] | None = None
        self.started = time.perf_counter()
        self._seq = itertools.count()
        self._lock = threading.Lock()
        self._attempts: dict[tuple[str, bytes], int] = {}
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="holon-cassette")
        self._jobs: list[Future[None]] = []
        #: Calls (seq) whose stream carried a known secret in pieces: the cassette is refused.
        self.split_secrets: list[int] = []

    def wrap(self, inner: httpx.AsyncBaseTransport) -> httpx.AsyncBaseTransport:
        return RecordingTransport(inner, self)

    def engine_path(self, url: httpx.URL) -> str:
        path = url.path
        if self.upstream_path and path.startswith(self.upstream_path):
            path = path[len(self.upstream_path) :]
        return self.prefix + path

    def begin(self, request: httpx.Request) -> _Pending:
        body = request.content
        path = self.engine_path(request.url)
        part = self.part_of() if self.part_of is not None else self.part
        with self._lock:
            seq = next(self._seq)
            attempt = self._attempts.get((path, body), 0) + 1
            self._attempts[(path, body)] = attempt
        return _Pending(seq, time.perf_counter(), request, path, body, attempt, part)

    def finish(self, pending: _Pending) -> None:
        """Turn a finished call into its record (once; later calls do nothing).

        In a worker thread: scrubbing and packing a large request (Claude Code's is about
        120 KB) costs about 2 ms of CPU, 7 ms for a run's first, which would otherwise hold
        up the gateway's event loop, and with it every other call in flight."""
        with self._lock:
            if pending.recorded:
                return
            pending.recorded = True
            self._jobs.append(self._pool.submit(self._keep, pending))

    def _keep(self, pending: _Pending) -> None:
        call = self._record(pending)
        with self._lock:
            self.calls.append(call)

    def ordered(self) -> list[RecordedCall]:
        """Every finished call's record (waiting for those being made), in start order."""
        with self._lock:
            jobs = list(self._jobs)
        for job in jobs:
            job.result()  # a bug while recording surfaces here, not in the gateway's thread
        with self._lock:
            return sorted(self.calls, key=lambda c: c.seq)

    def _record(self, p: _Pending) -> RecordedCall:
        scrub = self.scrubber
        request = p.request
        api, kind = classify(self.api, request.method, p.path)
        content_type = request.headers.get("content-type")
        if _is_json(p.body):  # each string redacted as decoded (what the text pass finds too)
            body = pack_body(p.body, content_type, self.store, split_json=True, clean=scrub.json)
        else:
            body = pack_body(scrub.data(p.body), content_type, self.store, split_json=False)
        events: list[StreamEvent] | None = None
        response = None
        if p.streamed:
            if p.buffer:  # an unfinished last event
                p.events.append((p.last_chunk_ms, bytes(p.buffer)))
            scrubbed = [(t, scrub.json_text(scrub.data(data))) for t, data in p.events]
            # Each event is clean now; what joins across events is checked on the clean ones.
            if split_secret((data for _, data in scrubbed), scrub):
                with self._lock:
                    self.split_secrets.append(p.seq)
            events = [pack_event(t, data, self.store) for t, data in scrubbed]
        elif p.status is not None:
            answer = scrub.json_text(scrub.data(bytes(p.buffer)))
            response = exact_body(answer, p.response_headers.get("content-type"), self.store)
        ms = 1e3
        return RecordedCall(
            seq=p.seq,
            part=p.part,
            api=api,
            kind=kind,
            method=request.method,
            path=scrub.text(p.path),
            query=clean_query(request.url.query.decode("latin-1"), scrub.text),
            request_headers={
                k: scrub.text(v)
                for k, v in keep_headers(request.headers.items(), REQUEST_HEADERS).items()
            },
            request=body,
            status=p.status,
            response_headers={k: scrub.text(v) for k, v in p.response_headers.items()},
            response=response,
            events=events,
            started_ms=round((p.started - self.started) * ms, 3),
            first_byte_ms=p.first_byte_ms,
            total_ms=round((time.perf_counter() - p.started) * ms, 3),
            attempt=p.attempt,
            error=p.error,
        )


def _is_json(data: bytes) -> bool:
    try:
        json.loads(data)
    except ValueError:
        return False
    return bool(data)


@dataclass
class _Pending:
    """What one call has shown so far."""

    seq: int
    started: float
    request: httpx.Request
    path: str
    body: bytes
    attempt: int
    part: str | None
    status: int | None = None
    response_headers: dict[str, str] = field(default_factory=dict)
    streamed: bool = False
    buffer: bytearray = field(default_factory=bytearray)
    events: list[tuple[float, bytes]] = field(default_factory=list)
    first_byte_ms: float | None = None
    last_chunk_ms: float = 0.0
    error: str | None = None
    complete: bool = False
    recorded: bool = False

    def feed(self, chunk: bytes) -> None:
        at = round((time.perf_counter() - self.started) * 1e3, 3)
        if self.first_byte_ms is None:
            self.first_byte_ms = at
        self.last_chunk_ms = at
        if not self.streamed:
            self.buffer += chunk
            return
        # Only the new bytes (and the three before them) can hold a new event end.
        start = max(0, len(self.buffer) - 3)
        self.buffer += chunk
        while True:
            ends = [(i, len(m)) for m in _EVENT_END if (i := self.buffer.find(m, start)) >= 0]
            if not ends:
                return
            index, length = min(ends)
            cut = index + length
            self.events.append((at, bytes(self.buffer[:cut])))
            del self.buffer[:cut]
            start = 0


class RecordingTransport(httpx.AsyncBaseTransport):
    """The real transport, with every call noted by a :class:`Recorder`."""

    def __init__(self, inner: httpx.AsyncBaseTransport, recorder: Recorder) -> None:
        self.inner = inner
        self.recorder = recorder

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        pending = self.recorder.begin(request)
        try:
            response = await self.inner.handle_async_request(request)
        except BaseException as exc:
            pending.error = f"upstream_error: {type(exc).__name__}"
            self.recorder.finish(pending)
            raise
        pending.status = response.status_code
        pending.response_headers = keep_headers(response.headers.items(), RESPONSE_HEADERS)
        content_type = response.headers.get("content-type", "")
        pending.streamed = content_type.split(";")[0].strip().lower() == "text/event-stream"
        assert isinstance(response.stream, httpx.AsyncByteStream)
        tee = _TeeStream(response.stream, pending, self.recorder)
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            stream=tee,
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        await self.inner.aclose()


class _TeeStream(httpx.AsyncByteStream):
    def __init__(self, inner: httpx.AsyncByteStream, pending: _Pending, recorder: Recorder) -> None:
        self.inner = inner
        self.pending = pending
        self.recorder = recorder

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self.inner:
                self.pending.feed(chunk)
                yield chunk
        except httpx.HTTPError as exc:
            self.pending.error = f"upstream_error: {type(exc).__name__}"
            raise
        self.pending.complete = True

    async def aclose(self) -> None:
        try:
            await self.inner.aclose()
        finally:
            if not self.pending.complete and self.pending.error is None:
                self.pending.error = "client_closed"
            self.recorder.finish(self.pending)
