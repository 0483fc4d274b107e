"""Recorded answers with the recording's paths turned into the replay's, also when a path
streams in pieces or one run's path starts with another's."""

from __future__ import annotations

import json

from holon_core.cassette.remap import PathRewrite

REC = "/tmp/rec-1/task/workspace"
NEW = "/tmp/holon-check/runs/run-9/workspace"


def sse(event: str, data: dict[str, object]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


def delta(index: int, fragment: str) -> bytes:
    body = {"type": "content_block_delta", "index": index}
    return sse(
        "content_block_delta",
        body | {"delta": {"type": "input_json_delta", "partial_json": fragment}},
    )


def test_a_replacement_is_never_replaced_again():
    rewrite = PathRewrite([(REC, NEW), ("/tmp/holon-check", "/elsewhere")])
    assert rewrite.text(f"wrote {REC}/hello.txt") == f"wrote {NEW}/hello.txt"


def test_a_path_split_across_deltas_is_rewritten_and_the_stream_still_parses():
    arguments = json.dumps({"file_path": f"{REC}/hello.txt", "content": "hi"})
    cut = arguments.index("rec-1") + 2  # the path is split inside
    events = [
        sse("content_block_start", {"type": "content_block_start", "index": 1}),
        delta(1, arguments[:cut]),
        delta(1, arguments[cut:]),
        sse("content_block_stop", {"type": "content_block_stop", "index": 1}),
    ]
    out = PathRewrite([(REC, NEW)]).events(events)
    assert len(out) == 3
    fragments = [
        json.loads(line[6:])["delta"]["partial_json"]
        for event in out
        for line in event.decode().splitlines()
        if line.startswith("data: ") and "partial_json" in line
    ]
    assert json.loads("".join(fragments))["file_path"] == f"{NEW}/hello.txt"
    assert all(event.endswith(b"\n\n") for event in out)


def test_an_answer_without_a_recorded_path_is_served_byte_for_byte():
    events = [delta(0, '{"a": '), delta(0, "1}")]
    assert PathRewrite([(REC, NEW)]).events(events) == events
    body = b'{"content": [{"type": "text", "text": "no path here"}]}'
    assert PathRewrite([(REC, NEW)]).body(body) is body
