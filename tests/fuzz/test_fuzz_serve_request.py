"""Fuzz serve's request reading: any JSON body gives a TurnRequest or a RequestError (an
Open Responses 4xx), never another exception; a request that passes has a task or files."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from holon_core.serve.errors import RequestError
from holon_core.serve.protocol import parse_request
from holon_core.testing.fuzz import FUZZ, json_values, mutated

PNG_URL = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUg=="
CONVERSATION: dict[str, Any] = {
    "model": "gpt-4o-mini",
    "instructions": "be brief",
    "input": [
        {"type": "message", "role": "system", "content": "You are a pirate."},
        {"role": "user", "content": [{"type": "input_text", "text": "hi"}]},
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "arr"}],
        },
        {"type": "function_call", "call_id": "c1", "name": "Bash", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": "ok"},
        {"type": "reasoning", "summary": []},
        {
            "role": "user",
            "content": [
                {"type": "input_text", "text": "look"},
                {"type": "input_image", "image_url": PNG_URL},
                {"type": "input_file", "filename": "../a.txt", "file_data": "aGk="},
            ],
        },
    ],
}


def _read(body: object) -> None:
    try:
        request = parse_request(body)
    except RequestError as exc:
        assert 400 <= exc.status < 500 and exc.message
        return
    assert request.input_text.strip() or request.attachments
    for item in request.attachments:
        assert "/" not in item.name and not item.name.startswith(".")


def test_the_seed_conversation_is_read() -> None:
    request = parse_request(CONVERSATION)
    assert request.system == ["You are a pirate."] and len(request.history) == 1
    assert [a.name for a in request.attachments] == ["image-1.png", "a.txt"]


@FUZZ
@given(mutated([CONVERSATION]))
def test_a_mutated_conversation_is_read_or_refused(body: Any) -> None:
    _read(body)


@FUZZ
@given(st.dictionaries(st.sampled_from(["input", "model", "previous_response_id"]), json_values()))
def test_any_json_body_is_read_or_refused(body: dict[str, Any]) -> None:
    _read(body)
