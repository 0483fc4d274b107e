"""What a request may carry, through the real ``holon-agent serve`` (replay engine): the
whole conversation from a stateless client, system and developer messages, images and
files, and a client's model name.

The replay scripts copy the prompt file the engine got into the turn's output dir
(``seen.md``), so each test reads exactly what the engine was shown.
"""

from __future__ import annotations

import base64
import json
import subprocess
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from holon_core.serve.attachments import MAX_ATTACHMENT_BYTES, MAX_ATTACHMENTS
from holon_core.serve.client import parse_sse, serve_command

from .conftest import Serve, start, stop_quietly

SHOW = {"run": 'cp "$HOLON_REPLAY_PROMPT_FILE" {output}/seen.md'}
#: The compliance CLI's image-input case: a 32x32 PNG (a red heart).
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAACAAAAAgCAIAAAD8GO2jAAABmklEQVR42tyWAaTyUBzFew/eG4AHz+MBSAHKBiJRGFKwIgQQ"
    "JKLUIioBIhCAiCAAEizAQIAECaASqFFJq84nudjnaqvuPnxzgP9xfrq5938csPn7PwHTKSoViCIEAYEAMhmoKsU2mUCWEQqB"
    "5xEMIp/HaGQG2G6RSuH9HQ7H34rFrtPbdz4jl6PbwmEsl3QA1mt4vcRKk8dz9eg6IpF7tt9fzGY0gCgafFRFo5Blc5vLhf3e"
    "COj1yNhM5GRMVK0aATxPZoz09YXjkQDmczJgquGQAPp9WwCNBgG027YACgUC6HRsAZRKBDAY2AJoNv/ZnwzA6WScznG3p4UA"
    "ymXGAEkyXrTFAh8fLAGqagQAyGaZpYsi7bHTNPz8MEj//LxuFPo+UBS8vb0KaLXubrRa7aX0RMLCykwmn0z3+XA4WACcTpCk"
    "h9MFAZpmuVXo+mO/w+/HZvNgbblcUCxaSo/Hyck80Yu6XXDcvfVZr79cvMZjuN2U9O9vKAqjZrfbIZ0mV4TUi9Xqz6jddNy/"
    "/7+e3n8Fhf/Llo2kxi8AQyGRoDkmAhAAAAAASUVORK5CYII="
)
PNG_URL = "data:image/png;base64," + base64.b64encode(PNG).decode()


def user(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "user", "content": text}


def seen(serve: Serve, turn: str) -> str:
    return (serve.turn_dir(turn) / "seen.md").read_text()


def post(serve: Serve, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    with serve.raw() as http:
        reply = http.post("/v1/responses", json=body, timeout=120)
    return reply.status_code, reply.json()


def test_a_stateless_client_sends_the_whole_conversation_each_turn(serve, check_open_responses):
    """Three turns, no previous_response_id: each request carries every earlier message and
    the items of every earlier response, echoed back as a client generated from the spec
    keeps them (tool calls included). The engine is shown the earlier turns."""
    history: list[dict[str, Any]] = []
    responses = []
    for number, (mark, answer) in enumerate(
        [("MARK-ONE", "ANSWER-ONE"), ("MARK-TWO", "ANSWER-TWO"), ("MARK-THREE", "ANSWER-3")], 1
    ):
        serve.script(f"sl{number}", [SHOW, {"say": answer}])
        history.append(user(f"Task {mark}"))
        response = serve.client.create(history, holon={"turn_id": f"sl{number}"})
        check_open_responses(response)
        assert response["status"] == "completed", response
        responses.append(response)
        history += response["output"]  # the whole output, as a stateless client keeps it

    prompt = seen(serve, "sl3")
    order = ["MARK-ONE", "ANSWER-ONE", "MARK-TWO", "ANSWER-TWO", "MARK-THREE"]
    assert [prompt.index(word) for word in order] == sorted(prompt.index(w) for w in order)
    assert "ANSWER-3" not in prompt
    assert "seen.md" in prompt.split("# This turn")[0]  # the echoed tool call is in the history
    record = json.loads((serve.turn_dir("sl3") / "turn.json").read_text())
    assert record["continuation"] == {"mode": "history", "turns": 2, "transcript": "transcript.md"}
    transcript = (serve.turn_dir("sl3") / "transcript.md").read_text()
    assert transcript.rstrip("\n") in prompt
    assert "MARK-ONE" not in seen(serve, "sl1").split("# Task")[0]
    assert responses[2]["previous_response_id"] is None


def test_the_history_is_rendered_as_the_stored_transcript_would_be(serve):
    """The same conversation continued by previous_response_id and sent statelessly gives
    the third turn the same transcript.md, byte for byte; and a turn continued by id from a
    stateless one still has the turns its client sent."""
    texts = [("alpha", "one"), ("beta", "two"), ("gamma", "three")]
    previous = None
    for number, (ask, answer) in enumerate(texts, 1):
        serve.script(f"ch{number}", [{"say": answer}])
        extra: dict[str, Any] = {"previous_response_id": previous} if previous else {}
        previous = serve.client.create(ask, holon={"turn_id": f"ch{number}"}, **extra)["id"]
    conversation: list[dict[str, Any]] = []
    stateless = None
    for number, (ask, answer) in enumerate(texts, 1):
        serve.script(f"st{number}", [{"say": answer}])
        conversation.append(user(ask))
        stateless = serve.client.create(conversation, holon={"turn_id": f"st{number}"})
        conversation += stateless["output"]
    chained = (serve.turn_dir("ch3") / "transcript.md").read_text()
    assert (serve.turn_dir("st3") / "transcript.md").read_text() == chained

    assert stateless is not None
    serve.script("st4", [{"say": "four"}])
    serve.client.create("delta", previous_response_id=stateless["id"], holon={"turn_id": "st4"})
    record = json.loads((serve.turn_dir("st4") / "turn.json").read_text())
    assert record["continuation"]["turns"] == 3
    after = (serve.turn_dir("st4") / "transcript.md").read_text()
    assert [after.index(w) for w in ("alpha", "beta", "gamma", "three")] == sorted(
        after.index(w) for w in ("alpha", "beta", "gamma", "three")
    )


def test_history_and_previous_response_id_together_are_refused(serve):
    serve.script("amb1", [{"say": "ok"}])
    first = serve.client.create("hello", holon={"turn_id": "amb1"})
    body = {
        "input": [user("hello"), *first["output"], user("again")],
        "previous_response_id": first["id"],
        "holon": {"turn_id": "amb2"},
    }
    status, reply = post(serve, body)
    assert status == 400, reply
    assert reply["error"]["code"] == "ambiguous_history"
    assert reply["error"]["param"] == "previous_response_id"
    assert "previous_response_id" in reply["error"]["message"]
    assert not serve.turn_dir("amb2").exists()

    cases = [
        ([user("hi"), {"role": "assistant", "content": "hello"}], "input", None),
        ([{"type": "item_reference", "id": "msg_1"}, user("hi")], "input[0]", "unsupported"),
        ([user("hi"), {"type": "shell_call", "id": "x"}, user("x")], "input[1].type", None),
        ([{"role": "critic", "content": "x"}], "input[0].role", None),
    ]
    for items, param, code in cases:
        status, reply = post(serve, {"input": items})
        assert status == 400, (items, reply)
        assert reply["error"]["param"] == param, reply
        if code:
            assert reply["error"]["code"] == code, reply


def test_system_and_developer_messages_go_to_the_system_prompt(serve):
    serve.script("sys", [SHOW, {"say": "arr"}])
    serve.client.create(
        [
            {"type": "message", "role": "system", "content": "SYSTEM-PIRATE speak like one."},
            {"role": "developer", "content": [{"type": "input_text", "text": "DEV-RULE-7"}]},
            user("Say hello. USER-ASK"),
        ],
        instructions="INSTRUCTIONS-FIELD",
        holon={"turn_id": "sys"},
    )
    prompt = seen(serve, "sys")
    system, task = prompt.split("# Task", 1)
    for text in ("SYSTEM-PIRATE", "DEV-RULE-7", "INSTRUCTIONS-FIELD"):
        assert text in system and text not in task, text
    assert system.index("INSTRUCTIONS-FIELD") < system.index("SYSTEM-PIRATE")
    assert "USER-ASK" in task


def test_images_and_files_are_written_to_the_input_dir_and_named_to_the_engine(serve):
    serve.script("att", [SHOW, {"say": "seen"}])
    text_file = base64.b64encode(b"col\n1\n").decode()
    response = serve.client.create(
        [
            {
                "type": "message",
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "What is in these?"},
                    {"type": "input_image", "image_url": PNG_URL, "detail": "auto"},
                    {
                        "type": "input_file",
                        "filename": "../../../etc/data.csv",
                        "file_data": text_file,
                    },
                    {
                        "type": "input_file",
                        "filename": ".hidden",
                        "file_data": f"data:text/plain;base64,{text_file}",
                    },
                ],
            }
        ],
        holon={"turn_id": "att"},
    )
    assert response["status"] == "completed", response
    folder = serve.input / "turns" / "att" / "attachments"
    assert sorted(p.name for p in folder.iterdir()) == ["data.csv", "hidden", "image-1.png"]
    assert (folder / "image-1.png").read_bytes() == PNG
    assert (folder / "data.csv").read_bytes() == b"col\n1\n"
    assert not (serve.root / "etc").exists()
    task = seen(serve, "att").split("# Task", 1)[1]
    assert f"{folder / 'image-1.png'} (image, image/png, {len(PNG)} bytes)" in task
    assert str(folder / "data.csv") in task and str(folder / "hidden") in task


def test_earlier_turns_files_stay_visible_in_the_history(serve):
    """A stateless client resends turn 1's image with the history: it is written again and
    the history names where; a turn continued by id names the earlier turn's own copy."""
    csv = "data:text/csv;base64," + base64.b64encode(b"a,b\n").decode()
    first_content = [
        {"type": "input_text", "text": "Keep these."},
        {"type": "input_image", "image_url": PNG_URL},
        {"type": "input_file", "file_data": csv},
    ]
    serve.script("fm1", [{"say": "kept"}])
    first = serve.client.create(
        [{"role": "user", "content": first_content}], holon={"turn_id": "fm1"}
    )
    kept = serve.input / "turns" / "fm1" / "attachments"
    assert sorted(p.name for p in kept.iterdir()) == ["file-1.csv", "image-1.png"]

    serve.script("fm2", [SHOW, {"say": "it was a heart"}])
    history = [{"role": "user", "content": first_content}, *first["output"], user("What was it?")]
    serve.client.create(history, holon={"turn_id": "fm2"})
    folder = serve.input / "turns" / "fm2" / "attachments"
    assert (folder / "image-1.png").read_bytes() == PNG
    earlier, task = seen(serve, "fm2").split("# This turn", 1)
    assert f"(attached: {folder / 'image-1.png'})" in earlier
    assert f"(attached: {folder / 'file-1.csv'})" in earlier
    assert "attachments" not in task

    serve.script("fm3", [{"say": "still a heart"}])
    serve.client.create("And now?", previous_response_id=first["id"], holon={"turn_id": "fm3"})
    transcript = (serve.turn_dir("fm3") / "transcript.md").read_text()
    assert f"(attached: {kept / 'image-1.png'})" in transcript


def test_attachments_are_never_written_through_a_link(serve, tmp_path):
    serve.script("lnk", [{"say": "never"}])
    (serve.input / "turns" / "lnk" / "attachments").symlink_to(tmp_path)
    content = [{"type": "input_text", "text": "x"}, {"type": "input_image", "image_url": PNG_URL}]
    failed = serve.client.create([{"role": "user", "content": content}], holon={"turn_id": "lnk"})
    assert failed["status"] == "failed" and "symbolic link" in failed["error"]["message"]
    assert list(tmp_path.iterdir()) == []


def test_attachments_over_the_caps_or_of_the_wrong_kind_are_refused(serve):
    def parts(*extra: dict[str, Any]) -> dict[str, Any]:
        content = [{"type": "input_text", "text": "look"}, *extra]
        return {"input": [{"role": "user", "content": content}], "holon": {"turn_id": "capx"}}

    image = {"type": "input_image", "image_url": PNG_URL}
    big = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"0" * MAX_ATTACHMENT_BYTES).decode()
    text_as_png = "data:image/png;base64," + base64.b64encode(b"not an image").decode()
    svg = "data:image/svg+xml;base64," + base64.b64encode(b"<svg/>").decode()
    many = [{"role": "user", "content": [image] * 40}, {"role": "assistant", "content": "ok"}]
    cases = [
        (
            {"input": [*many, {"role": "user", "content": [image] * 25}]},
            "too_many_attachments",
            "input",
        ),
        (
            parts(*[image] * (MAX_ATTACHMENTS + 1)),
            "too_many_attachments",
            f"input[0].content[{MAX_ATTACHMENTS + 1}]",
        ),
        (
            parts({"type": "input_image", "image_url": f"data:image/png;base64,{big}"}),
            "attachment_too_large",
            "input[0].content[1].image_url",
        ),
        (
            parts({"type": "input_image", "image_url": text_as_png}),
            "invalid_image",
            "input[0].content[1].image_url",
        ),
        (
            parts({"type": "input_image", "image_url": svg}),
            "unsupported_image_type",
            "input[0].content[1].image_url",
        ),
        (
            parts({"type": "input_image", "image_url": "data:image/png;base64,@@@"}),
            None,
            "input[0].content[1].image_url",
        ),
        (
            parts({"type": "input_image", "image_url": "https://example.invalid/a.png"}),
            "fetch_disabled",
            "input[0].content[1].image_url",
        ),
        (
            parts({"type": "input_file", "file_url": "http://example.invalid/a.pdf"}),
            "fetch_disabled",
            "input[0].content[1].file_url",
        ),
        (
            parts({"type": "input_file", "file_id": "file_1"}),
            "unsupported",
            "input[0].content[1].file_id",
        ),
        (parts({"type": "input_file", "filename": "x"}), None, "input[0].content[1]"),
    ]
    for body, code, param in cases:
        status, reply = post(serve, body)
        assert status == 400, (param, reply)
        assert reply["error"]["type"] and reply["error"]["message"], reply
        assert reply["error"]["param"] == param, reply
        if code:
            assert reply["error"]["code"] == code, reply
    assert not (serve.input / "turns" / "capx").exists()
    assert not serve.turn_dir("capx").exists()


def test_a_model_the_engine_does_not_take_is_ignored_with_a_warning(serve, check_open_responses):
    serve.script("mdl", [{"say": "ok"}])
    response = serve.client.create("hi", model="gpt-4o-mini", holon={"turn_id": "mdl"})
    check_open_responses(response)
    manifest = json.loads((serve.turn_dir("mdl") / "manifest.json").read_text())
    assert response["model"] == manifest["metadata"]["engine"]["model"] == "replay"
    [warning] = response["holon"]["warnings"]
    assert "gpt-4o-mini" in warning and "--model-map" in warning
    assert serve.client.get(response["id"])["holon"]["warnings"] == [warning]


class _Files(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body, kind, status = {
            "/heart.png": (PNG, "image/png", 200),
            "/page.png": (b"<html>", "text/html", 200),
        }.get(self.path, (b"gone", "text/plain", 404))
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def files_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Files)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture(scope="module")
def fetching(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serve]:
    server = start(tmp_path_factory.mktemp("fetch"), "--allow-fetch")
    yield server
    stop_quietly(server)


def test_with_allow_fetch_urls_are_fetched_and_checked(fetching, files_server):
    fetching.script("url", [SHOW, {"say": "ok"}])
    content = [
        {"type": "input_text", "text": "look"},
        {"type": "input_image", "image_url": f"{files_server}/heart.png"},
    ]
    response = fetching.client.create(
        [{"role": "user", "content": content}], holon={"turn_id": "url"}
    )
    assert response["status"] == "completed", response
    path = fetching.input / "turns" / "url" / "attachments" / "image-1.png"
    assert path.read_bytes() == PNG
    assert str(path) in seen(fetching, "url")

    for name, why in (("page.png", "not accepted"), ("missing.png", "HTTP 404")):
        content[1]["image_url"] = f"{files_server}/{name}"
        failed = fetching.client.create([{"role": "user", "content": content}])
        assert failed["status"] == "failed", failed
        assert failed["error"]["code"] == "invalid_input"
        assert (
            why in failed["error"]["message"]
            and "input[0].content[1]" in failed["error"]["message"]
        )


def test_a_malformed_model_map_stops_the_server_before_it_starts(tmp_path: Path):
    done = subprocess.run(
        serve_command(tmp_path / "s.sock", ["--engine", "replay", "--model-map", "gpt-4o"]),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    assert "--model-map 'gpt-4o' is not CLIENT=ENGINE" in done.stderr
    assert not (tmp_path / "s.sock").exists()


#: The request bodies of the official compliance CLI (openresponses/openresponses,
#: src/lib/compliance-tests.ts), as it sends them: model, input, stream; the tool cases add
#: a function tool.
WEATHER_TOOL = {
    "type": "function",
    "name": "get_weather",
    "description": "Get the current weather for a location",
    "parameters": {
        "type": "object",
        "properties": {"location": {"type": "string", "description": "The city and state"}},
        "required": ["location"],
    },
}
COMPLIANCE: dict[str, dict[str, Any]] = {
    "basic-response": {"input": [user("Say hello in exactly 3 words.")]},
    "streaming-response": {"input": [user("Count from 1 to 5.")], "stream": True},
    "system-prompt": {
        "input": [
            {
                "type": "message",
                "role": "system",
                "content": "You are a pirate. Always respond in pirate speak.",
            },
            user("Say hello."),
        ]
    },
    "tool-calling": {"input": [user("Weather in San Francisco?")], "tools": [WEATHER_TOOL]},
    "tool-calling-streaming": {
        "input": [user("Weather in San Francisco?")],
        "tools": [WEATHER_TOOL],
        "stream": True,
    },
    "image-input": {
        "input": [
            {
                "type": "message",
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "What do you see in this image?"},
                    {"type": "input_image", "image_url": PNG_URL},
                ],
            }
        ]
    },
    "multi-turn": {
        "input": [
            user("My name is Alice."),
            {
                "type": "message",
                "role": "assistant",
                "content": "Hello Alice! Nice to meet you. How can I help you today?",
            },
            user("What is my name?"),
        ]
    },
}


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serve]:
    """A server whose every turn plays one script (the compliance bodies carry no holon ids)."""
    root = tmp_path_factory.mktemp("published")
    script = root / "replay.yaml"
    script.write_text(json.dumps([{"say": "Ahoy, Alice."}]))
    server = start(root, env={"HOLON_REPLAY_SCRIPT": str(script)})
    yield server
    stop_quietly(server)


def test_the_compliance_requests_as_published_are_answered(published, check_open_responses):
    """All seven at once, as the CLI sends them: every one but the client-tool cases is
    answered; those get holon's documented 400 ``unsupported`` naming ``tools``."""

    def send(body: dict[str, Any]) -> tuple[int, Any]:
        with published.raw() as http:
            reply = http.post("/v1/responses", json={"model": "gpt-4o-mini", **body}, timeout=120)
        if body.get("stream") and reply.status_code == 200:
            return 200, list(parse_sse(iter(reply.text.splitlines())))
        return reply.status_code, reply.json()

    with ThreadPoolExecutor(len(COMPLIANCE)) as pool:
        replies = dict(zip(COMPLIANCE, pool.map(send, COMPLIANCE.values()), strict=True))
    for name, (status, reply) in replies.items():
        if name.startswith("tool-calling"):
            assert status == 400, (name, reply)
            assert (reply["error"]["code"], reply["error"]["param"]) == ("unsupported", "tools")
            continue
        assert status == 200, (name, reply)
        if isinstance(reply, list):  # the stream
            check_open_responses(reply)
            reply = reply[-1]["response"]
        check_open_responses(reply)
        assert reply["status"] == "completed" and reply["output"], (name, reply)
        assert reply["model"] == "replay" and "gpt-4o-mini" in reply["holon"]["warnings"][0]
