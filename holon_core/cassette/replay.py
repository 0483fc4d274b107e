"""Replay: an httpx transport under the gateway that answers from a cassette.

The gateway's proxy is unchanged (placeholder credential, metering, budget, usage read from
the bytes it passes), so a replayed run's usage and cost are the recorded wire's. This
transport never opens a connection: each request is matched to a recorded call
(:mod:`holon_core.cassette.match`) and answered with its recorded status, allowlisted
headers and bytes, the recording's paths turned into the replay's
(:mod:`holon_core.cassette.remap`).

Strict mode (the default): a model request with no recorded answer, or one whose normalized
body drifted, is answered ``400`` in the wire's own error format with ``x-should-retry:
false`` (engines do not retry a 400), and the session is marked refused so holon stops the
engine and the run ends ``replay_mismatch``. Lenient mode serves the nearest recorded answer
and keeps a warning.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import urlsplit

import httpx

from holon_core.cassette.format import Cassette, RecordedCall, body_bytes, event_bytes
from holon_core.cassette.match import Candidate, Match, Matcher
from holon_core.cassette.mismatch import Mismatch
from holon_core.cassette.normalize import PathMap
from holon_core.cassette.remap import PathRewrite
from holon_core.cassette.shape import Shape, shape_of
from holon_core.gateway.apis import classify, error_body

Mode = Literal["strict", "lenient"]
MODES: tuple[Mode, ...] = ("strict", "lenient")


@dataclass
class Answer:
    status: int
    headers: list[tuple[str, str]]
    chunks: list[bytes]


@dataclass
class ReplaySession:
    """One run's replay of ``cassette``: what was served, what drifted, whether it refused."""

    cassette: Cassette
    mode: Mode
    #: The replay run's paths by the names the recording used (``CassetteInfo.paths``).
    paths: dict[str, str]
    api: str
    upstream: str = ""
    prefix: str = ""
    served: int = 0
    mismatches: list[Mismatch] = field(default_factory=list)
    side_misses: list[str] = field(default_factory=list)
    #: Set when strict mode refused a request: the run ends ``replay_mismatch``.
    refused: str | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.recorded_paths = PathMap.of(dict(self.cassette.info.paths))
        self.replay_paths = PathMap.of(dict(self.paths))
        self.rewrite = PathRewrite(self.recorded_paths.onto(self.replay_paths))
        self.by_seq = {call.seq: call for call in self.cassette.calls}
        self._matcher: Matcher | None = None
        # The recorded calls are normalized while the engine starts (seconds), not before.
        self._indexing = threading.Thread(target=self._index, name="holon-replay-index")
        self._indexing.daemon = True
        self._indexing.start()

    def _index(self) -> None:
        self._matcher = Matcher([self._candidate(call) for call in self.cassette.calls])
        self._share_cache()

    def _share_cache(self) -> None:
        """A string that holds neither run's paths normalizes alike for both runs: the
        replay's requests (the same system prompt, tools and history) find it done."""
        paths = [p for p, _ in self.recorded_paths.pairs + self.replay_paths.pairs]
        shared = self.replay_paths.cache
        for text, done in list(self.recorded_paths.cache.items()):
            if not any(path in text for path in paths):
                shared.setdefault(text, done)

    @property
    def matcher(self) -> Matcher:
        self._indexing.join()
        if self._matcher is None:  # the index failed (an unreadable body): say so here
            self._index()
        assert self._matcher is not None
        return self._matcher

    def _candidate(self, call: RecordedCall) -> Candidate:
        shape = shape_of(
            call.api,
            call.kind,
            method=call.method,
            path=call.path,
            query=call.query,
            body=_request_value(body_bytes(call.request, self.cassette.store)),
            paths=self.recorded_paths,
        )
        return Candidate(call.seq, shape, call.status, call.error)

    def wrap(self, _real: httpx.AsyncBaseTransport) -> httpx.AsyncBaseTransport:
        """For ``GatewayServer.wrap_transport``: the real transport is never used."""
        return ReplayTransport(self)

    def engine_path(self, url: httpx.URL) -> str:
        """The path as the engine sent it (the gateway put the upstream's path before it)."""
        path = url.path
        upstream = urlsplit(self.upstream).path.rstrip("/")
        if upstream and path.startswith(upstream):
            path = path[len(upstream) :]
        return self.prefix + path

    def answer(self, method: str, path: str, query: str, body: bytes) -> Answer:
        api, kind = classify(self.api, method, path)
        request = shape_of(
            api,
            kind,
            method=method,
            path=path,
            query=query,
            body=_request_value(body),
            paths=self.replay_paths,
        )
        match = self.matcher.match(request)
        if match.verdict == "miss":
            return self._missing(api, kind, request, match)
        if not match.ok:
            with self._lock:
                self.mismatches.append(Mismatch(api, request, match))
            if self.mode == "strict":
                return self._refuse(api, self.mismatches[-1])
        assert match.served is not None
        with self._lock:
            self.served += 1
        return self._recorded(self.by_seq[match.served.seq])

    def _missing(self, api: str, kind: str, request: Shape, match: Match) -> Answer:
        method, path = request.method, request.path
        if kind != "model":  # a side call nothing like was recorded: 404, never a failure
            note = f"{method} {path}: no recorded side call on this path; answered 404"
            with self._lock:
                self.side_misses.append(note)
            message = f"holon replay: the cassette has no answer for {method} {path}"
            return _error(api, 404, message)
        mismatch = Mismatch(api, request, match)
        with self._lock:
            self.mismatches.append(mismatch)
        return self._refuse(api, mismatch)

    def _refuse(self, api: str, mismatch: Mismatch) -> Answer:
        summary = mismatch.summary()
        with self._lock:
            if self.refused is None:
                self.refused = summary
        message = (
            f"holon replay: {summary}; the cassette has no answer for this request "
            "(evidence/replay-mismatch.md)"
        )
        return _error(api, 400, message)

    def _recorded(self, call: RecordedCall) -> Answer:
        if call.status is None:  # the recording got no answer: what the gateway said then
            api = classify(self.api, call.method, call.path)[0]
            return _error(api, 502, f"holon replay: the recorded call got no answer ({call.error})")
        store = self.cassette.store
        if call.events is not None:
            chunks = self.rewrite.events([event_bytes(e, store) for e in call.events])
        else:
            chunks = [self.rewrite.body(self.cassette.response_bytes(call))]
        return Answer(call.status, list(call.response_headers.items()), chunks)

    def warnings(self) -> list[str]:
        """The manifest's warnings: drift served anyway (lenient), side calls not recorded."""
        with self._lock:
            drift = [
                f"cassette replay (lenient): {m.summary()}; the nearest recorded answer was served"
                for m in self.mismatches
            ]
            if self.mode == "strict":
                drift = []
            return drift + [f"cassette replay: {note}" for note in self.side_misses]

    def record(self) -> dict[str, object]:
        """``metadata.cassette_replay``."""
        with self._lock:
            return {
                "path": str(self.cassette.root),
                "mode": self.mode,
                "recorded_calls": len(self.cassette.calls),
                "served": self.served,
                "mismatches": len(self.mismatches),
                "refused": self.refused,
            }


def _error(api: str, status: int, message: str) -> Answer:
    headers = [("content-type", "application/json"), ("x-should-retry", "false")]
    return Answer(status, headers, [error_body(api, status, message)])


def _request_value(body: bytes) -> object:
    """A request body as matching compares it: its JSON, else its text; a gzip-compressed
    body (an engine may compress its requests) is read uncompressed."""
    import contextlib
    import gzip
    import json

    if body[:2] == b"\x1f\x8b":
        with contextlib.suppress(OSError, EOFError):
            body = gzip.decompress(body)
    if not body:
        return None
    try:
        value: object = json.loads(body)
    except ValueError:
        return body.decode("utf-8", "replace")
    return value


class ReplayTransport(httpx.AsyncBaseTransport):
    """Answers every request from the session's cassette; opens no connection."""

    def __init__(self, session: ReplaySession) -> None:
        self.session = session

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body = await request.aread()
        session = self.session
        answer = session.answer(
            request.method,
            session.engine_path(request.url),
            request.url.query.decode("latin-1"),
            body,
        )
        return httpx.Response(
            answer.status,
            headers=answer.headers,
            stream=_Chunks(answer.chunks),
            request=request,
        )


class _Chunks(httpx.AsyncByteStream):
    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = chunks

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self.chunks:
            yield chunk
