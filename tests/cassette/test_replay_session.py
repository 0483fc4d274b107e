"""The replay transport's answers on a cassette built with the format's own models: a
compressed request matches its recording, a body that is no JSON is still compared, and a
refused request gets a non-retryable error in the wire's format."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from holon_core.cassette.format import (
    Body,
    BodyStore,
    Cassette,
    CassetteInfo,
    EngineRecord,
    RecordedCall,
    exact_body,
)
from holon_core.cassette.replay import ReplaySession

ANSWER = b'{"type": "message", "content": [{"type": "text", "text": "done"}]}'


def cassette(tmp_path: Path, requests: list[bytes]) -> Cassette:
    store = BodyStore()
    calls = [
        RecordedCall(
            seq=seq,
            api="anthropic-messages",
            kind="model",
            method="POST",
            path="/v1/messages",
            request=exact_body(raw, "application/json", store),
            status=200,
            response_headers={"content-type": "application/json"},
            response=Body(size=len(ANSWER), text=ANSWER.decode()),
            started_ms=0,
        )
        for seq, raw in enumerate(requests)
    ]
    info = CassetteInfo(
        created="2026-11-26T00:00:00Z",
        holon_version="0",
        engine=EngineRecord(name="claude"),
        spec={},
        outcome="success",
        reason="ok",
        calls=len(calls),
    )
    return Cassette(tmp_path, info, calls, store)


def body(prompt: str) -> bytes:
    return json.dumps({"model": "m", "messages": [{"role": "user", "content": prompt}]}).encode()


def session(tmp_path: Path, requests: list[bytes], mode: str = "strict") -> ReplaySession:
    replay = ReplaySession(cassette(tmp_path, requests), mode, {}, "anthropic-messages")  # type: ignore[arg-type]
    return replay


def test_a_compressed_request_matches_its_recording(tmp_path):
    replay = session(tmp_path, [gzip.compress(body("hello"))])
    answer = replay.answer("POST", "/v1/messages", "", gzip.compress(body("hello")))
    assert (answer.status, b"".join(answer.chunks)) == (200, ANSWER)
    answer = replay.answer("POST", "/v1/messages", "", body("hello"))
    assert answer.status == 200 and replay.refused is None


def test_a_body_that_is_no_json_is_compared_as_text(tmp_path):
    replay = session(tmp_path, [b"plain text one"])
    assert replay.answer("POST", "/v1/messages", "", b"plain text one").status == 200
    refused = replay.answer("POST", "/v1/messages", "", b"plain text two")
    assert refused.status == 400 and replay.refused is not None


def test_a_refusal_is_a_non_retryable_error_in_the_wire_format(tmp_path):
    replay = session(tmp_path, [body("hello")])
    answer = replay.answer("POST", "/v1/messages", "", body("goodbye"))
    assert answer.status == 400
    assert ("x-should-retry", "false") in answer.headers
    error = json.loads(b"".join(answer.chunks))
    assert error["type"] == "error" and error["error"]["type"] == "invalid_request_error"
    assert "evidence/replay-mismatch.md" in error["error"]["message"]
    assert replay.record()["refused"] and replay.record()["mismatches"] == 1


def test_lenient_mode_serves_the_nearest_and_warns(tmp_path):
    replay = session(tmp_path, [body("hello")], mode="lenient")
    answer = replay.answer("POST", "/v1/messages", "", body("goodbye"))
    assert (answer.status, b"".join(answer.chunks)) == (200, ANSWER)
    assert replay.refused is None
    assert len(replay.warnings()) == 1 and "lenient" in replay.warnings()[0]
