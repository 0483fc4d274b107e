"""Serve mode end to end: the real ``holon-agent serve`` with the replay engine, one server."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import pytest

from holon_core.serve.client import ServeClientError, parse_sse

TOOL_ITEMS = ("function_call", "function_call_output")


def test_three_turns_chain_with_a_record_per_turn(serve, check_open_responses):
    serve.script("t1", [{"say": "one"}, {"write": {"path": "a.txt", "content": "A\n"}}])
    serve.script("t2", [{"say": "two"}, {"write": {"path": "b.txt", "content": "B\n"}}])
    serve.script("t3", [{"say": "three"}, {"run": "cat a.txt b.txt"}])

    events1 = list(serve.client.stream("first", holon={"turn_id": "t1"}))
    first = events1[-1]["response"]
    second = serve.client.create(
        "second", previous_response_id=first["id"], holon={"turn_id": "t2"}
    )
    events3 = list(
        serve.client.stream("third", previous_response_id=second["id"], holon={"turn_id": "t3"})
    )
    third = events3[-1]["response"]

    # the stream: created ... completed, numbered, schema-valid, text as output_text deltas
    assert [e["type"] for e in events1[:2]] == ["response.created", "response.in_progress"]
    assert events1[-1]["type"] == "response.completed"
    assert [e["delta"] for e in events1 if e["type"] == "response.output_text.delta"] == ["one"]
    for events in (events1, events3):
        check_open_responses(events)
    # the engine's tool: a function_call (arguments streamed) and its function_call_output
    done = [e["item"] for e in events3 if e["type"] == "response.output_item.done"]
    call, result = (next(i for i in done if i["type"] == t) for t in TOOL_ITEMS)
    assert call["status"] == "completed" and "cat a.txt b.txt" in call["arguments"]
    deltas = [e for e in events3 if e["type"] == "response.function_call_arguments.delta"]
    assert [e["item_id"] for e in deltas] == [call["id"]]
    assert result["call_id"] == call["call_id"] and "A\nB" in result["output"]
    assert result["holon"] == {"status": "completed", "exit_code": 0, "command": "cat a.txt b.txt"}
    for response in (first, second, third):
        check_open_responses(response)
        assert response["status"] == "completed"
        assert serve.client.get(response["id"]) == response  # stored, retrievable
    assert second["output"][0]["content"][0]["text"] == "two"
    assert [second["previous_response_id"], third["previous_response_id"]] == [
        first["id"],
        second["id"],
    ]
    assert first["holon"]["session_id"] == second["holon"]["session_id"]

    for turn, response, changed in (("t1", first, "a.txt"), ("t2", second, "b.txt")):
        out = serve.turn_dir(turn)
        manifest = json.loads((out / "manifest.json").read_text())
        assert manifest["outcome"] == "success"
        assert manifest["metadata"]["mode"] == "serve"
        patch = (out / "diff.patch").read_text()
        assert f"b/{changed}" in patch and patch.count("diff --git") == 1  # this turn alone
        assert (out / "summary.md").is_file() and (out / "evidence" / "events.ndjson").is_file()
        record = json.loads((out / "turn.json").read_text())
        assert record["response_id"] == response["id"]
        assert record["turn_id"] == turn and record["outcome"] == "success"
    # events.ndjson is exactly the stream the client got
    lines = (serve.turn_dir("t1") / "events.ndjson").read_text().splitlines()
    assert [json.loads(line) for line in lines] == events1

    # replay cannot resume: the earlier turns are rendered into the prompt, and named
    record3 = json.loads((serve.turn_dir("t3") / "turn.json").read_text())
    expected = {"mode": "transcript", "turns": 2, "transcript": "transcript.md"}
    assert record3["continuation"] == expected
    transcript = (serve.turn_dir("t3") / "transcript.md").read_text()
    assert transcript.index("first") < transcript.index("one") < transcript.index("second")
    assert "two" in transcript and "third" not in transcript
    assert json.loads((serve.turn_dir("t1") / "turn.json").read_text())["continuation"] == {
        "mode": "none"
    }


def test_bad_requests_get_open_responses_errors(serve):
    def post(body, **kw):
        with serve.raw() as http:
            return http.post("/v1/responses", content=body, **kw)

    cases = [
        (post(b'{"input": '), 400, "invalid_json", None),
        (post(b"[1, 2]"), 400, "invalid_body", None),
        (post(json.dumps({"input": "x", "stream": "yes"})), 400, None, "stream"),
        (post(json.dumps({"input": 5})), 400, None, "input"),
        (post(json.dumps({"input": "x", "temperature": "hot"})), 400, None, "temperature"),
        (
            post(json.dumps({"input": "x", "tools": [{"type": "function", "name": "f"}]})),
            400,
            "unsupported",
            "tools",
        ),
        (
            post(json.dumps({"input": "x", "holon": {"turn_id": "../../etc"}})),
            400,
            None,
            "holon.turn_id",
        ),
        (
            post(json.dumps({"input": "x", "holon": {"output_dir": "../../elsewhere"}})),
            400,
            "path_outside_root",
            "holon.output_dir",
        ),
        (
            post(json.dumps({"input": "x", "holon": {"input_dir": "/etc"}})),
            400,
            "path_outside_root",
            "holon.input_dir",
        ),
        (
            post(json.dumps({"input": "x", "previous_response_id": "resp_unknown"})),
            404,
            "response_not_found",
            "previous_response_id",
        ),
        (post(b"x" * (8 * 1024 * 1024 + 1)), 413, "body_too_large", None),
    ]
    with serve.raw() as http:
        cases += [
            (http.get("/v1/responses/resp_unknown"), 404, "response_not_found", "response_id"),
            (http.get("/v1/responses/..%2F..%2Fetc%2Fpasswd"), 404, None, None),
            (http.post("/v1/responses/resp_unknown/cancel"), 404, "response_not_found", None),
            (http.get("/nothing-here"), 404, None, None),
        ]
    for response, status, code, param in cases:
        assert response.status_code == status, response.text
        error = response.json()["error"]
        assert error["message"] and error["type"], error
        if code is not None:
            assert error["code"] == code, error
        if param is not None:
            assert error["param"] == param, error
    assert not (serve.root / "elsewhere").exists()
    assert serve.client.health()["busy"] is False


def test_turns_wait_their_turn_and_a_cancel_is_recorded(serve, check_open_responses):
    serve.script("slow", [{"say": "working"}, {"sleep": 60}, {"say": "never"}])
    events = []
    with serve.raw() as http:
        body = {"input": "take long", "stream": True, "holon": {"turn_id": "slow"}}
        with http.stream("POST", "/v1/responses", json=body, timeout=None) as stream:
            lines = stream.iter_lines()
            for event in parse_sse(lines):
                events.append(event)
                if event["type"] == "response.output_text.delta":
                    break
            response_id = events[0]["response"]["id"]
            serve.script("meanwhile", [{"say": "my turn"}])
            waiting: list[dict[str, Any]] = []
            meanwhile = threading.Thread(
                target=lambda: waiting.append(
                    serve.client.create("meanwhile", holon={"turn_id": "meanwhile"})
                )
            )
            meanwhile.start()  # it waits for the turn in flight: turns are serial
            deadline = time.monotonic() + 60
            while not serve.client.health()["queued"] and time.monotonic() < deadline:
                time.sleep(0.05)
            health = serve.client.health()
            assert health["busy"] is True and health["current_response_id"] == response_id
            assert [t["turn_id"] for t in health["queued"]] == ["meanwhile"]
            assert not waiting
            cancelled = serve.client.cancel(response_id)
            events += list(parse_sse(lines))
            meanwhile.join(60)
    assert waiting[0]["status"] == "completed"  # it ran once the cancelled turn ended
    assert _record(serve, "meanwhile")["started_at"] >= _record(serve, "slow")["ended_at"]
    assert cancelled["status"] == "failed" and cancelled["error"]["code"] == "cancelled"
    assert [e["type"] for e in events[-2:]] == ["error", "response.failed"]
    check_open_responses(events)
    manifest = json.loads((serve.turn_dir("slow") / "manifest.json").read_text())
    assert manifest["outcome"] == "failure" and manifest["metadata"]["reason"] == "cancelled"
    with pytest.raises(ServeClientError) as again:
        serve.client.cancel(response_id)
    assert again.value.status == 409


def test_a_client_that_disconnects_mid_stream_still_gets_its_turn_recorded(serve):
    serve.script("gone", [{"say": "started"}, {"sleep": 1}, {"say": "finished"}])
    with serve.raw() as http:
        body = {"input": "go", "stream": True, "holon": {"turn_id": "gone"}}
        with http.stream("POST", "/v1/responses", json=body, timeout=None) as stream:
            first = next(parse_sse(stream.iter_lines()))
    response_id = first["response"]["id"]
    deadline = time.monotonic() + 60
    while serve.client.health()["busy"] and time.monotonic() < deadline:
        time.sleep(0.1)
    stored = serve.client.get(response_id)
    assert stored["status"] == "completed"
    assert [item["content"][0]["text"] for item in stored["output"]] == ["started", "finished"]
    lines = (serve.turn_dir("gone") / "events.ndjson").read_text().splitlines()
    assert json.loads(lines[-1])["type"] == "response.completed"
    assert json.loads((serve.turn_dir("gone") / "manifest.json").read_text())["outcome"] == (
        "success"
    )


def test_a_used_turn_id_is_refused(serve):
    serve.script("once", [{"say": "ok"}])
    serve.client.create("first", holon={"turn_id": "once"})
    errors: list[ServeClientError] = []

    def again() -> None:
        try:
            serve.client.create("second", holon={"turn_id": "once"})
        except ServeClientError as exc:
            errors.append(exc)

    thread = threading.Thread(target=again)
    thread.start()
    thread.join(60)
    assert errors and errors[0].status == 409 and errors[0].error["code"] == "turn_exists"


def test_isolated_turns_work_on_copies_and_leave_the_workspace_alone(serve):
    before = sorted(p.name for p in serve.workspace.iterdir())
    serve.script("iso1", [{"write": {"path": "iso.txt", "content": "1\n"}}])
    serve.script("iso2", [{"run": "cat iso.txt"}, {"write": {"path": "iso2.txt", "content": "2"}}])
    first = serve.client.create("one", holon={"turn_id": "iso1", "workspace": "isolated"})
    second = serve.client.create(
        "two",
        previous_response_id=first["id"],
        holon={"turn_id": "iso2", "workspace": "isolated"},
    )
    assert sorted(p.name for p in serve.workspace.iterdir()) == before
    result = next(i for i in second["output"] if i["type"] == "function_call_output")
    assert result["holon"]["status"] == "completed"  # iso.txt was there: a copy of turn 1's
    assert result["output"].strip() == "1"
    patch = (serve.turn_dir("iso2") / "diff.patch").read_text()
    assert "b/iso2.txt" in patch and "b/iso.txt" not in patch
    record = json.loads((serve.turn_dir("iso2") / "turn.json").read_text())
    assert record["workspace"]["mode"] == "isolated"
    assert record["workspace"]["path"] != str(serve.workspace)


def _record(serve, turn_id: str) -> dict[str, Any]:
    record: dict[str, Any] = json.loads((serve.turn_dir(turn_id) / "turn.json").read_text())
    return record
