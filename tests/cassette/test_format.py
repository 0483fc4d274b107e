"""The cassette format: bodies stored once by content, read back exactly, and files that
validate against the published JSON Schema (``holon schema cassette``)."""

from __future__ import annotations

import json

import jsonschema
import pytest

from holon_core.cassette.format import (
    BODIES_DIR,
    CALLS_FILE,
    INFO_FILE,
    REF_KEY,
    BodyStore,
    CassetteError,
    CassetteInfo,
    EngineRecord,
    RecordedCall,
    call_line,
    info_text,
    pack_body,
    pack_event,
    read_cassette,
    schema,
)

TOOLS = [{"name": f"tool{i}", "description": "x" * 2000, "input_schema": {}} for i in range(3)]


def request(turns: int) -> bytes:
    messages = [{"role": "user", "content": f"turn {i} " + "y" * 1500} for i in range(turns)]
    return json.dumps({"model": "m", "tools": TOOLS, "messages": messages}).encode()


def write(tmp_path, calls, store):
    info = CassetteInfo(
        created="2026-11-26T19:00:00Z",
        holon_version="0.0.0",
        engine=EngineRecord(name="claude", version="2.0.0"),
        spec={"goal": "g"},
        outcome="success",
        reason="ok",
        calls=len(calls),
    )
    (tmp_path / INFO_FILE).write_text(info_text(info))
    (tmp_path / CALLS_FILE).write_text("".join(call_line(c) + "\n" for c in calls))
    store.flush(tmp_path / BODIES_DIR)


def call(seq, body, store, events=None):
    return RecordedCall(
        seq=seq,
        api="anthropic-messages",
        kind="model",
        method="POST",
        path="/v1/messages",
        request=pack_body(body, "application/json", store, split_json=True),
        status=200,
        events=events,
        started_ms=float(seq),
    )


def test_repeated_parts_are_stored_once_and_read_back(tmp_path):
    store = BodyStore()
    sse = b'event: message_start\ndata: {"type":"message_start"}\n\n'
    big = b"data: " + b"z" * 9000 + b"\n\n"
    calls = [call(i, request(i + 1), store, [pack_event(1.5, sse, store)]) for i in range(3)]
    calls.append(call(3, request(1), store, [pack_event(2.0, big, store)]))
    write(tmp_path, calls, store)
    # 3 tools + 3 distinct messages + the large event: the growing history is not repeated.
    assert len(list((tmp_path / BODIES_DIR).iterdir())) == 7
    assert REF_KEY in (tmp_path / CALLS_FILE).read_text()
    cassette = read_cassette(tmp_path)
    assert [cassette.request_json(c) for c in cassette.calls] == [
        json.loads(request(n)) for n in (1, 2, 3, 1)
    ]
    assert cassette.response_bytes(cassette.calls[0]) == sse
    assert cassette.response_bytes(cassette.calls[3]) == big


def test_the_files_validate_against_the_published_schema(tmp_path):
    store = BodyStore()
    plain = RecordedCall(
        seq=1,
        api="google-generate-content",
        kind="models",
        method="GET",
        path="/v1beta/models",
        request=pack_body(b"", None, store, split_json=True),
        status=200,
        response=pack_body(
            bytes(range(256)) * 20, "application/octet-stream", store, split_json=False
        ),
        started_ms=0.0,
    )
    write(tmp_path, [call(0, request(2), store), plain], store)
    published = schema()
    jsonschema.Draft202012Validator.check_schema(published)
    jsonschema.validate(json.loads((tmp_path / INFO_FILE).read_text()), published)
    line_schema = {**published["$defs"]["RecordedCall"], "$defs": published["$defs"]}
    for line in (tmp_path / CALLS_FILE).read_text().splitlines():
        jsonschema.validate(json.loads(line), line_schema)
    cassette = read_cassette(tmp_path)
    assert cassette.response_bytes(cassette.calls[1]) == bytes(range(256)) * 20


def test_a_damaged_body_or_a_newer_version_is_a_clear_error(tmp_path):
    store = BodyStore()
    write(tmp_path, [call(0, request(2), store)], store)
    victim = next((tmp_path / BODIES_DIR).iterdir())
    victim.write_bytes(b"changed")
    cassette = read_cassette(tmp_path)
    with pytest.raises(CassetteError, match="does not match its name"):
        cassette.request_json(cassette.calls[0])
    info = json.loads((tmp_path / INFO_FILE).read_text()) | {"version": 2}
    (tmp_path / INFO_FILE).write_text(json.dumps(info))
    with pytest.raises(CassetteError, match="format version 2; this holon reads version 1"):
        read_cassette(tmp_path)
    with pytest.raises(CassetteError, match="no cassette"):
        read_cassette(tmp_path / "nowhere")
