"""Queued turns: requests wait their turn (one session in order, ``--max-concurrent``
sessions side by side), a full queue answers 429, a client gone or a cancel takes a waiting
turn out before it runs. The replay engine; a turn is held at a gate file the test opens,
so "still running" is a state the test controls, never a timing."""

from __future__ import annotations

import json
import signal
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from holon_core.serve.client import ServeClientError, parse_sse

from .conftest import Serve, start, stop_quietly

WAIT = 60.0


def _gated(serve: Serve, turn_id: str, *, say: str = "done") -> Path:
    """A turn script that says it started, waits for its gate file, then answers."""
    gate = serve.root / f"gate-{turn_id}"
    started = serve.root / f"started-{turn_id}"
    wait = f"touch {started}; while [ ! -e {gate} ]; do sleep 0.05; done"
    serve.script(turn_id, [{"run": wait}, {"say": say}])
    return gate


NEVER = [{"write": {"path": "never.txt", "content": "x"}}]
#: These turns coordinate with the test, and with each other, through files beside the
#: session (gates, started marks): outside any turn's room, so the rooms are off here.
#: tests/sandbox/test_room_serve.py runs serve turns in their rooms.
OUTSIDE_THE_ROOM = {"HOLON_SANDBOX": "off"}


def _running_and_queued(
    serve: Serve, first: str, second: str, steps: list[dict[str, Any]]
) -> tuple[Path, Streamed, Streamed, str]:
    """Turn ``first`` running at its gate, turn ``second`` queued behind it: (gate, their
    streams, the queued response's id)."""
    gate = _gated(serve, first)
    serve.script(second, steps)
    running = Streamed(serve, {"input": "one", "holon": {"turn_id": first}})
    running.first("response.in_progress")
    queued = Streamed(serve, {"input": "two", "holon": {"turn_id": second}})
    created = queued.first("response.created")
    assert created["response"]["status"] == "queued"
    queued.first("response.queued")
    return gate, running, queued, created["response"]["id"]


class Streamed:
    """A streaming request in a thread of its own; its events as they arrive."""

    def __init__(self, serve: Serve, body: dict[str, Any]) -> None:
        self.events: list[dict[str, Any]] = []
        self.status: int | None = None
        self._changed = threading.Condition()
        self._serve, self._body = serve, {**body, "stream": True}
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        with (
            self._serve.raw() as http,
            http.stream("POST", "/v1/responses", json=self._body, timeout=None) as response,
        ):
            self.status = response.status_code
            for event in parse_sse(response.iter_lines()):
                with self._changed:
                    self.events.append(event)
                    self._changed.notify_all()

    def first(self, kind: str) -> dict[str, Any]:
        """The first event of type ``kind``, waiting for it."""
        with self._changed:
            self._changed.wait_for(lambda: any(e["type"] == kind for e in self.events), WAIT)
            return next(e for e in self.events if e["type"] == kind)

    def finish(self) -> list[dict[str, Any]]:
        self._thread.join(WAIT)
        assert not self._thread.is_alive(), "the stream did not end"
        return self.events


def _until(predicate: Any, what: str) -> None:
    """Poll the server until ``predicate()`` holds (a wait, not an assertion on time)."""
    deadline = time.monotonic() + WAIT
    while not predicate():
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.05)


def _turn_record(serve: Serve, turn_id: str) -> dict[str, Any]:
    record: dict[str, Any] = json.loads((serve.turn_dir(turn_id) / "turn.json").read_text())
    return record


def _queued_ids(serve: Serve) -> list[str]:
    return [t["turn_id"] for t in serve.client.health()["queued"]]


@pytest.fixture
def server(tmp_path: Path) -> Any:
    serve = start(tmp_path, "--max-queued", "1", env=OUTSIDE_THE_ROOM)
    (serve.workspace / "README.md").write_text("hello\n")
    yield serve
    stop_quietly(serve)


def test_two_requests_in_one_session_run_in_order(server, check_open_responses):
    gate = _gated(server, "q1", say="the answer is 42")
    server.script("q2", [{"say": "it was 42"}])
    first = Streamed(server, {"input": "remember 42", "holon": {"turn_id": "q1"}})
    first_id = first.first("response.created")["response"]["id"]
    second = Streamed(
        server,
        {"input": "which number?", "previous_response_id": first_id, "holon": {"turn_id": "q2"}},
    )
    created = second.first("response.created")
    second.first("response.queued")
    second_id = created["response"]["id"]
    assert created["response"]["status"] == "queued"
    health = server.client.health()
    assert [t["response_id"] for t in health["running"]] == [first_id]
    assert [t["response_id"] for t in health["queued"]] == [second_id]
    assert health["busy"] is True and health["current_response_id"] == first_id
    assert server.client.get(second_id)["status"] == "queued"

    gate.touch()
    events1, events2 = first.finish(), second.finish()
    assert events1[-1]["response"]["status"] == "completed"
    assert events2[-1]["response"]["status"] == "completed"
    types = [e["type"] for e in events2]
    assert types[:3] == ["response.created", "response.queued", "response.in_progress"]
    assert types.count("response.created") == 1
    check_open_responses(events2)
    written = (server.turn_dir("q2") / "events.ndjson").read_text().splitlines()
    assert [json.loads(line) for line in written] == events2  # the file is the stream sent
    one, two = _turn_record(server, "q1"), _turn_record(server, "q2")
    assert two["started_at"] >= one["ended_at"]  # in order, one at a time
    assert two["continuation"]["mode"] == "transcript"  # decided when it started
    assert "the answer is 42" in (server.turn_dir("q2") / "transcript.md").read_text()
    assert server.client.health()["queued"] == []


def test_a_full_queue_answers_429_with_retry_after(server, check_open_responses):
    gate, first, second, _ = _running_and_queued(server, "f1", "f2", [{"say": "second"}])
    with server.raw() as http:
        full = http.post("/v1/responses", json={"input": "three", "holon": {"turn_id": "f3"}})
    assert full.status_code == 429, full.text
    assert int(full.headers["retry-after"]) >= 1
    error = full.json()["error"]
    assert error["type"] == "too_many_requests" and error["code"] == "queue_full"
    assert "--max-queued" in error["message"]
    with pytest.raises(ServeClientError) as refused:
        server.client.create("four", holon={"turn_id": "f4"})
    assert refused.value.status == 429 and refused.value.retry_after == int(
        full.headers["retry-after"]
    )
    gate.touch()
    assert second.finish()[-1]["response"]["status"] == "completed"
    assert first.finish()[-1]["response"]["status"] == "completed"
    assert not server.turn_dir("f3").exists()


def test_a_queued_request_whose_client_leaves_never_runs(tmp_path):
    serve = start(tmp_path, "--max-queued", "4", env=OUTSIDE_THE_ROOM)
    try:
        gate = _gated(serve, "d1")
        serve.script("d2", NEVER)
        serve.script("d3", NEVER)
        first = Streamed(serve, {"input": "one", "holon": {"turn_id": "d1"}})
        first.first("response.in_progress")
        # a streaming client: it reads response.created (queued) and hangs up
        with serve.raw() as http:
            body = {"input": "two", "stream": True, "holon": {"turn_id": "d2"}}
            with http.stream("POST", "/v1/responses", json=body, timeout=None) as stream:
                created = next(parse_sse(stream.iter_lines()))
        streamed_id = created["response"]["id"]

        # a plain client that gives up waiting
        def impatient() -> None:
            with serve.raw() as http, pytest.raises(httpx.ReadTimeout):
                body = {"input": "three", "holon": {"turn_id": "d3"}}
                http.post("/v1/responses", json=body, timeout=httpx.Timeout(10, read=1.0))

        thread = threading.Thread(target=impatient)
        thread.start()
        thread.join(WAIT)
        _until(lambda: _queued_ids(serve) == [], "the dropped requests to leave the queue")
        gate.touch()
        _until(lambda: not serve.client.health()["busy"], "turn d1 to end")
        assert first.finish()[-1]["response"]["status"] == "completed"
        assert serve.client.health()["turns_served"] == 1
        for turn_id in ("d2", "d3"):
            assert not serve.turn_dir(turn_id).exists(), f"{turn_id} ran"
        assert not (serve.workspace / "never.txt").exists()
        dropped = serve.client.get(streamed_id)
        assert dropped["status"] == "failed"
        assert dropped["error"]["code"] == "client_disconnected"
        assert dropped["holon"]["ran"] is False
        records = [json.loads(p.read_text()) for p in (serve.root / "state/responses").iterdir()]
        plain = next(r for r in records if r["turn_id"] == "d3")
        assert plain["response"]["error"]["code"] == "client_disconnected"
    finally:
        stop_quietly(serve)


def test_cancel_takes_a_queued_response_out(server, check_open_responses):
    gate, first, second, second_id = _running_and_queued(server, "c1", "c2", NEVER)
    with server.raw() as http:  # its turn id is taken, though its dir does not exist yet
        again = http.post("/v1/responses", json={"input": "x", "holon": {"turn_id": "c2"}})
    assert again.status_code == 409 and again.json()["error"]["code"] == "turn_exists"
    cancelled = server.client.cancel(second_id)
    assert cancelled["status"] == "failed" and cancelled["error"]["code"] == "cancelled"
    assert cancelled["holon"]["ran"] is False
    events = second.finish()
    assert [e["type"] for e in events] == [
        "response.created",
        "response.queued",
        "error",
        "response.failed",
    ]
    check_open_responses(events)
    assert server.client.health()["queued"] == []
    assert server.client.get(second_id) == cancelled
    gate.touch()
    assert first.finish()[-1]["response"]["status"] == "completed"
    assert not server.turn_dir("c2").exists()
    assert not (server.workspace / "never.txt").exists()


def test_max_concurrent_runs_isolated_sessions_side_by_side(tmp_path):
    serve = start(tmp_path, "--max-concurrent", "2", env=OUTSIDE_THE_ROOM)
    try:
        # each turn waits (bounded) until the other has started too: side by side, both
        # see the other's mark; one at a time, neither would. The bound (120 s) is far above
        # a loaded machine's start of the second turn (20 s was seen to fall short under -n 2)
        for me, other in (("p1", "p2"), ("p2", "p1")):
            mine, theirs = serve.root / f"started-{me}", serve.root / f"started-{other}"
            wait = (
                f"touch {mine}; for i in $(seq 2400); do [ -e {theirs} ] && break; sleep 0.05; done"
            )
            serve.script(me, [{"run": wait}, {"say": me}])
        body = {"workspace": "isolated"}
        streams = [
            Streamed(serve, {"input": me, "holon": {"turn_id": me, **body}}) for me in ("p1", "p2")
        ]
        for stream in streams:
            last = stream.finish()[-1]["response"]
            assert last["status"] == "completed", json.dumps(last)[:3000]
        one, two = _turn_record(serve, "p1"), _turn_record(serve, "p2")
        assert one["session_id"] != two["session_id"]
        assert one["started_at"] < two["ended_at"] and two["started_at"] < one["ended_at"]
        runs = []  # each turn's log holds its own run's lines only
        for turn_id in ("p1", "p2"):
            log = (serve.turn_dir(turn_id) / "evidence" / "execution.log").read_text()
            lines = [json.loads(line) for line in log.splitlines()]
            assert {line["run"] for line in lines} == {lines[0]["run"]}
            assert "engine ended" in [line["event"] for line in lines]
            runs.append(lines[0]["run"])
        assert runs[0] != runs[1]
    finally:
        stop_quietly(serve)


def test_turns_on_the_shared_workspace_never_run_side_by_side(tmp_path):
    serve = start(tmp_path, "--max-concurrent", "2", env=OUTSIDE_THE_ROOM)
    try:
        gate, first, second, _ = _running_and_queued(serve, "w1", "w2", [{"say": "second"}])
        health = serve.client.health()
        assert health["max_concurrent"] == 2
        assert [t["turn_id"] for t in health["running"]] == ["w1"]
        assert [t["turn_id"] for t in health["queued"]] == ["w2"]
        gate.touch()
        assert second.finish()[-1]["response"]["status"] == "completed"
        first.finish()
        assert _turn_record(serve, "w2")["started_at"] >= _turn_record(serve, "w1")["ended_at"]
    finally:
        stop_quietly(serve)


def test_shutdown_lets_queued_turns_finish_and_sigterm_cancels_them(tmp_path):
    serve = start(tmp_path / "a", env=OUTSIDE_THE_ROOM)
    try:
        gate, first, second, _ = _running_and_queued(serve, "s1", "s2", [{"say": "after"}])
        assert serve.client.shutdown()["queued"] == 1
        with serve.raw() as http:
            late = http.post("/v1/responses", json={"input": "late"})
        assert late.status_code == 503 and late.json()["error"]["code"] == "shutting_down"
        gate.touch()
        assert second.finish()[-1]["response"]["status"] == "completed"
        assert first.finish()[-1]["response"]["status"] == "completed"
        assert serve.process.wait(timeout=WAIT) == 0
    finally:
        stop_quietly(serve)

    serve = start(tmp_path / "b", env=OUTSIDE_THE_ROOM)
    try:
        _, first, second, second_id = _running_and_queued(serve, "k1", "k2", NEVER)
        serve.process.send_signal(signal.SIGTERM)
        assert second.finish()[-1]["response"]["error"]["code"] == "cancelled"
        assert first.finish()[-1]["type"] == "response.failed"
        assert serve.process.wait(timeout=WAIT) == 0
        record = json.loads((serve.root / "state/responses" / f"{second_id}.json").read_text())
        assert record["response"]["holon"]["ran"] is False
        assert not serve.turn_dir("k2").exists()
    finally:
        stop_quietly(serve)


def test_a_queued_isolated_turn_starts_from_its_previous_turns_copy(tmp_path):
    serve = start(tmp_path, env=OUTSIDE_THE_ROOM)
    try:
        gate = _gated(serve, "g1")  # i1 and i2 wait behind it: i2 is planned before i1 runs
        serve.script("i1", [{"write": {"path": "made.txt", "content": "by i1\n"}}])
        serve.script("i2", [{"run": "cat made.txt"}])
        ahead = Streamed(serve, {"input": "zero", "holon": {"turn_id": "g1"}})
        ahead.first("response.in_progress")
        isolated = {"workspace": "isolated"}
        first = Streamed(serve, {"input": "one", "holon": {"turn_id": "i1", **isolated}})
        first_id = first.first("response.queued")["response"]["id"]
        body = {"input": "two", "previous_response_id": first_id}
        second = Streamed(serve, {**body, "holon": {"turn_id": "i2", **isolated}})
        second.first("response.queued")
        gate.touch()
        final = second.finish()[-1]["response"]
        outputs = [item for item in final["output"] if item["type"] == "function_call_output"]
        assert "by i1" in outputs[0]["output"]  # a copy of where turn i1 left it
        assert not (serve.workspace / "made.txt").exists()
    finally:
        stop_quietly(serve)
