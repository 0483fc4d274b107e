"""Request forms through ``holon-agent serve`` with the real Claude Code against the scripted
model server: what the engine sends to the model shows what holon handed it (the earlier
turns of a stateless client, system messages in the system field, attachment paths, the
model)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from holon_conformance.provider import ScriptedProvider

from .conftest import Serve, start, stop_quietly
from .test_serve_requests import PNG_URL, user

pytestmark = pytest.mark.engine("claude")

ANSWER = "Done: nothing to change."


@pytest.fixture(scope="module")
def provider() -> Iterator[ScriptedProvider]:
    from holon_conformance.provider import parse_scenario

    with ScriptedProvider(parse_scenario({"turns": [{"final": {"text": ANSWER}}]}, "c")) as p:
        yield p


@pytest.fixture(scope="module")
def claude(provider, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serve]:
    env = {**provider.engine_env("claude"), "HOLON_TIMEOUT": "120"}
    extra = ["--engine", "claude", "--model-map", "gpt-4o-mini=claude-mapped-1"]
    server = start(tmp_path_factory.mktemp("claude"), *extra, env=env)
    (server.workspace / "README.md").write_text("hello\n")
    yield server
    stop_quietly(server)


def _turn(
    serve: Serve, provider: ScriptedProvider, items: list[dict[str, Any]], **fields: Any
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """One turn; its response and the bodies of the model requests it made."""
    before = len(provider.turn_requests("claude"))
    response = serve.client.create(items, **fields)
    assert response["status"] == "completed", response
    return response, [r.body for r in provider.turn_requests("claude")[before:]]


def _manifest_model(serve: Serve, response: dict[str, Any]) -> str:
    manifest = json.loads(
        (serve.turn_dir(response["holon"]["turn_id"]) / "manifest.json").read_text()
    )
    model: str = manifest["metadata"]["engine"]["model"]
    return model


def test_a_stateless_conversation_reaches_claude_with_its_earlier_turns(
    engine_binary, claude, provider, check_open_responses
):
    engine_binary("claude")  # fails, never skips, when the engine is missing
    history: list[dict[str, Any]] = []
    bodies = []
    for mark in ("MARK-ONE", "MARK-TWO", "MARK-THREE"):
        history.append(user(f"Answer briefly. {mark}"))
        response, sent = _turn(claude, provider, history)
        check_open_responses(response)
        bodies.append(json.dumps(sent[0]["messages"]))
        history += response["output"]
    first, _second, third = bodies
    assert "MARK-TWO" not in first and "Conversation so far" not in first
    marks = [third.index(m) for m in ("MARK-ONE", "MARK-TWO", "MARK-THREE")]
    assert marks == sorted(marks)
    assert third.count(ANSWER) >= 2  # the earlier answers, as the history's assistant side
    record = json.loads((claude.turn_dir(response["holon"]["turn_id"]) / "turn.json").read_text())
    assert record["continuation"]["mode"] == "history" and record["continuation"]["turns"] == 2


def test_system_message_image_and_mapped_model_reach_claude(engine_binary, claude, provider):
    engine_binary("claude")
    content = [
        {"type": "input_text", "text": "Describe the picture. USER-ASK"},
        {"type": "input_image", "image_url": PNG_URL},
    ]
    response, sent = _turn(
        claude,
        provider,
        [
            {"role": "system", "content": "SYSTEM-PIRATE: talk like one."},
            {"role": "user", "content": content},
        ],
        model="gpt-4o-mini",
    )
    body = sent[0]
    assert "SYSTEM-PIRATE" in json.dumps(body["system"])
    assert "SYSTEM-PIRATE" not in json.dumps(body["messages"])
    image = claude.input / "turns" / response["holon"]["turn_id"] / "attachments" / "image-1.png"
    assert image.is_file() and str(image) in json.dumps(body["messages"])
    assert body["model"] == "claude-mapped-1"
    assert response["model"] == _manifest_model(claude, response) == "claude-mapped-1"
    assert "warnings" not in response["holon"]


def test_claude_gets_a_model_it_takes_and_never_one_it_does_not(engine_binary, claude, provider):
    engine_binary("claude")
    taken, sent = _turn(claude, provider, [user("hi")], model="claude-test-9")
    assert sent[0]["model"] == "claude-test-9" and taken["model"] == "claude-test-9"
    assert "warnings" not in taken["holon"]

    ignored, sent = _turn(claude, provider, [user("hi")], model="gpt-4.1")
    assert {body["model"] for body in sent} & {"gpt-4.1"} == set()
    assert ignored["model"] == _manifest_model(claude, ignored) == sent[0]["model"]
    [warning] = ignored["holon"]["warnings"]
    assert "'gpt-4.1' ignored" in warning
