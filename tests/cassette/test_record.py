"""Recording at the gateway's transport: the real gateway in front of the scripted model
server over HTTPS, a Recorder under its upstream client."""

from __future__ import annotations

import json

import httpx

from holon_core.cassette.format import BodyStore, RecordedCall, event_bytes
from holon_core.cassette.record import Recorder
from holon_core.cassette.scrub import Scrubber
from holon_core.gateway.session import open_gateway
from tests.gateway.kit import REAL_KEY, WireAdapter

BODY = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 100,
    "stream": True,
    "messages": [{"role": "user", "content": "hi"}],
}


def recording_gateway(server, ca_file):
    env = {
        "ANTHROPIC_BASE_URL": server.url,
        "ANTHROPIC_API_KEY": REAL_KEY,
        "SSL_CERT_FILE": str(ca_file),
    }
    session = open_gateway(WireAdapter(), env, None)
    assert session is not None and session.server is not None
    route = session.server.app.route
    recorder = Recorder(route.api, route.upstream, route.prefix, Scrubber([REAL_KEY]))
    session.server.wrap_transport = recorder.wrap
    return session, recorder


def post(session, body=BODY, stream_to=None):
    url = session.engine_env["ANTHROPIC_BASE_URL"] + "/v1/messages?beta=true"
    headers = {
        "x-api-key": session.engine_env["ANTHROPIC_API_KEY"],
        "anthropic-version": "2023-06-01",
        "cookie": "session=abc",
    }
    return httpx.post(url, json=body, headers=headers, timeout=30)


def test_a_streamed_call_is_recorded_event_by_event_without_the_key(https_provider, ca_file):
    server = https_provider("final-only")
    session, recorder = recording_gateway(server, ca_file)
    try:
        answer = post(session)
        assert answer.status_code == 200, answer.text
    finally:
        session.close()
    [call] = recorder.ordered()
    assert isinstance(call, RecordedCall)
    assert (call.api, call.kind, call.method, call.path) == (
        "anthropic-messages",
        "model",
        "POST",
        "/v1/messages",
    )
    assert call.query == "beta=true" and call.status == 200
    assert call.request_headers["anthropic-version"] == "2023-06-01"
    assert not {"x-api-key", "cookie", "authorization"} & set(call.request_headers)
    assert call.response_headers["content-type"].startswith("text/event-stream")
    assert call.events is not None and len(call.events) >= 4
    times = [e.t for e in call.events]
    assert times == sorted(times)
    store: BodyStore = recorder.store
    assert b"".join(event_bytes(e, store) for e in call.events) == answer.content
    assert all(event_bytes(e, store).endswith(b"\n\n") for e in call.events)
    assert call.request.skeleton == BODY
    assert REAL_KEY not in call.model_dump_json()


def test_a_refused_call_and_a_plain_answer_are_recorded_as_they_were(https_provider, ca_file):
    server = https_provider("final-only")
    session, recorder = recording_gateway(server, ca_file)
    try:
        models = httpx.get(
            session.engine_env["ANTHROPIC_BASE_URL"] + "/v1/models",
            headers={"x-api-key": session.engine_env["ANTHROPIC_API_KEY"]},
            timeout=30,
        )
        plain = post(session, BODY | {"stream": False})
    finally:
        session.close()
    first, second = recorder.ordered()
    assert first.kind == "models" and first.status == models.status_code
    assert second.events is None and second.response is not None
    assert second.response.size == len(plain.content)
    answer = second.response.text if second.response.text is not None else ""
    assert json.loads(answer) == plain.json()


def test_the_recorder_passes_each_chunk_on_before_the_next_arrives():
    """The upstream sends its second event only once the client has read the first: a
    recorder that held the stream back would never let it (the wait would run out)."""
    import asyncio

    first_read = asyncio.Event()
    first = b'event: message_start\ndata: {"type":"message_start"}\n\n'
    second = b'event: message_stop\ndata: {"type":"message_stop"}\n\n'

    async def upstream():
        yield first[:10]
        yield first[10:]
        await asyncio.wait_for(first_read.wait(), timeout=30)
        yield second

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200, headers={"content-type": "text/event-stream"}, content=upstream()
        )

    recorder = Recorder("anthropic-messages", "https://api.example", "", Scrubber([]))

    async def client() -> bytes:
        seen = b""
        transport = recorder.wrap(httpx.MockTransport(answer))
        async with (
            httpx.AsyncClient(transport=transport) as http,
            http.stream("POST", "https://api.example/v1/messages", json=BODY) as response,
        ):
            async for chunk in response.aiter_raw():
                seen += chunk
                if seen == first:
                    first_read.set()
        return seen

    assert asyncio.run(client()) == first + second
    [call] = recorder.ordered()
    store = recorder.store
    assert [event_bytes(e, store) for e in call.events or []] == [first, second]
    assert call.error is None and call.first_byte_ms is not None


def test_concurrent_calls_are_recorded_apart_in_the_order_they_started():
    """Two streams interleaved chunk by chunk (as a subagent beside the main loop): each
    call keeps its own request and events; seq follows the order the calls started."""
    import asyncio

    turns = {"a": asyncio.Event(), "b": asyncio.Event()}

    def event(name: str, n: int) -> bytes:
        return f'event: delta\ndata: {{"call": "{name}", "n": {n}}}\n\n'.encode()

    async def upstream(name: str, other: str):
        for n in range(3):
            if name == "b" or n:
                await asyncio.wait_for(turns[name].wait(), timeout=30)
            turns[name].clear()
            yield event(name, n)
            turns[other].set()

    def answer(request: httpx.Request) -> httpx.Response:
        name = json.loads(request.content)["name"]
        stream = upstream(name, "b" if name == "a" else "a")
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=stream)

    recorder = Recorder("anthropic-messages", "https://api.example", "", Scrubber([]))

    async def call(http: httpx.AsyncClient, name: str) -> bytes:
        url = "https://api.example/v1/messages"
        async with http.stream("POST", url, json={"name": name}) as response:
            return b"".join([chunk async for chunk in response.aiter_raw()])

    async def both() -> list[bytes]:
        async with httpx.AsyncClient(transport=recorder.wrap(httpx.MockTransport(answer))) as http:
            first = asyncio.create_task(call(http, "a"))
            await asyncio.sleep(0)
            return list(await asyncio.gather(first, call(http, "b")))

    got = asyncio.run(both())
    calls = recorder.ordered()
    assert [c.seq for c in calls] == [0, 1]
    assert [c.request.skeleton for c in calls] == [{"name": "a"}, {"name": "b"}]
    for call_, name, body in zip(calls, "ab", got, strict=True):
        events = [event_bytes(e, recorder.store) for e in call_.events or []]
        assert events == [event(name, n) for n in range(3)]
        assert b"".join(events) == body
