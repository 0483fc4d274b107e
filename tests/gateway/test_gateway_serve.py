"""The gateway in serve mode, with the real Claude Code against the scripted model server over
HTTPS: one gateway for the whole session (on by default), each turn metered on its own, a
turn's own budget (``holon.budget``) and the session's (``serve --max-cost``), whose spent
figure runs on across turns."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from holon_core.serve.client import serve_command
from tests.serve.conftest import Serve, check_open_responses, start, stop_quietly

from .kit import REAL_KEY
from .test_gateway_engines import engine_env

pytestmark = pytest.mark.engine("claude")
__all__ = ["check_open_responses"]  # a fixture of tests/serve, used here


def _serve(server: Any, ca_file: Path, root: Path, *extra: str) -> Serve:
    env = {k: v for k, v in engine_env(server, "claude", ca_file).items() if k != "HOLON_GATEWAY"}
    serve = start(root, "--engine", "claude", *extra, env=env | {"HOLON_TIMEOUT": "120"})
    (serve.workspace / "README.md").write_text("hello\n")
    return serve


def _manifest(serve: Serve, response: dict[str, Any]) -> dict[str, Any]:
    path = serve.turn_dir(response["holon"]["turn_id"]) / "manifest.json"
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def _listening_ports(pid: int) -> set[int]:
    """The TCP ports process ``pid`` listens on (its socket fds against /proc/net/tcp)."""
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    ports = set()
    for line in Path(f"/proc/{pid}/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if fields[3] == "0A" and fields[9] in inodes:  # 0A: LISTEN
            ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


def test_one_gateway_serves_every_turn_of_the_session_and_meters_each_turn(
    engine_binary, https_provider, ca_file, tmp_path
):
    engine_binary("claude")
    server = https_provider("write-and-run")
    serve = _serve(server, ca_file, tmp_path / "s")
    try:
        ports = _listening_ports(serve.process.pid)
        assert len(ports) == 1, ports  # the session's gateway, up before any turn
        first = serve.client.create("Create hello.txt")
        assert first["status"] == "completed", first
        calls_first = len(server.requests)
        second = serve.client.create("Create hello.txt again")
        assert second["status"] == "completed", second
        assert _listening_ports(serve.process.pid) == ports  # the same gateway, still up
        for response in (first, second):
            meta = _manifest(serve, response)["metadata"]
            assert meta["gateway"]["state"] == "on"
            assert meta["gateway"]["upstream"].startswith(server.url)
            assert meta["usage"]["source"] == "gateway" and meta["cost"]["usd"] > 0
        # each turn's record holds its own calls, not the other turn's
        second_calls = serve.turn_dir(second["holon"]["turn_id"]) / "evidence/model-calls.ndjson"
        lines = second_calls.read_text().splitlines()
        assert len(lines) == len(server.requests) - calls_first
        assert _manifest(serve, second)["metadata"]["usage"]["calls"] == len(lines)
        assert all(REAL_KEY not in r.text() for r in server.requests)
    finally:
        stop_quietly(serve)


def test_a_turn_budget_ends_that_turn_budget_exceeded_and_the_next_turn_runs(
    engine_binary, https_provider, ca_file, tmp_path, check_open_responses
):
    engine_binary("claude")
    server = https_provider("write-and-run")
    serve = _serve(server, ca_file, tmp_path / "s")
    try:
        spent = serve.client.create("Create hello.txt", holon={"budget": {"max_model_calls": 1}})
        check_open_responses(spent)
        assert spent["status"] == "failed", spent
        assert spent["error"]["code"] == "budget_exceeded"
        assert spent["holon"]["reason"] == "budget_exceeded"
        budget = _manifest(serve, spent)["metadata"]["budget"]
        assert (budget["max_model_calls"], budget["exceeded"]) == (1, "max_model_calls")
        assert "session" not in budget  # no session budget was set
        assert "hello.txt" in (serve.turn_dir(spent["holon"]["turn_id"]) / "diff.patch").read_text()
        after = serve.client.create("Create hello.txt")
        assert after["status"] == "completed", after
        assert "budget" not in _manifest(serve, after)["metadata"]
    finally:
        stop_quietly(serve)


def test_a_session_budget_runs_on_across_turns(
    engine_binary, https_provider, ca_file, tmp_path, assert_valid_manifest
):
    engine_binary("claude")
    server = https_provider("write-and-run")
    serve = _serve(server, ca_file, tmp_path / "s", "--max-cost", "0.0001")
    try:
        first = serve.client.create("Create hello.txt")
        assert first["status"] == "failed" and first["error"]["code"] == "budget_exceeded", first
        budget = assert_valid_manifest(_manifest(serve, first))["metadata"]["budget"]
        assert budget["exceeded"] == "session.max_cost_usd"
        session = budget["session"]
        assert session["max_cost_usd"] == 0.0001 and session["spent"]["cost_usd"] >= 0.0001
        upstream = len(server.requests)
        second = serve.client.create("Create hello.txt")
        assert second["status"] == "failed" and second["error"]["code"] == "budget_exceeded"
        assert "serve session's budget" in second["error"]["message"]
        assert len(server.requests) == upstream  # the engine never started
        later = assert_valid_manifest(_manifest(serve, second))["metadata"]["budget"]
        assert later["session"]["spent"] == session["spent"]  # kept across turns
        assert later["spent"]["model_calls"] == 0
    finally:
        stop_quietly(serve)


def test_a_bad_turn_budget_is_refused_naming_the_field(serve_replay):
    response = serve_replay.raw().post(
        "/v1/responses", json={"input": "hi", "holon": {"budget": {"max_tokens": 0}}}
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["param"] == "holon.budget.max_tokens", error
    assert "at least 1" in error["message"]
    response = serve_replay.raw().post(
        "/v1/responses", json={"input": "hi", "holon": {"budget": {"max_dollars": 1}}}
    )
    assert response.status_code == 400 and "max_cost_usd" in response.json()["error"]["message"]


def test_a_session_budget_that_is_no_amount_is_a_usage_error(tmp_path):
    result = subprocess.run(
        serve_command(tmp_path / "sock", ["--max-cost", "lots"]),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 1
    assert "--max-cost 'lots' is not a positive amount" in result.stderr


@pytest.fixture
def serve_replay(tmp_path):
    serve = start(tmp_path / "r")
    yield serve
    stop_quietly(serve)


def test_turns_side_by_side_are_metered_apart(engine_binary, https_provider, ca_file, tmp_path):
    """Two turns at once through the one gateway: each turn's record holds its own calls (a
    call belongs to the turn whose placeholder it carries)."""
    from concurrent.futures import ThreadPoolExecutor

    engine_binary("claude")
    server = https_provider("write-and-run")
    serve = _serve(server, ca_file, tmp_path / "s", "--max-concurrent", "2")
    try:
        goals = {"A": "Create hello.txt (task A)", "B": "Create hello.txt (task B)"}

        def turn(goal: str) -> dict[str, Any]:
            return serve.client.create(goal, holon={"workspace": "isolated"})

        with ThreadPoolExecutor(2) as pool:
            responses = dict(zip(goals, pool.map(turn, goals.values()), strict=True))
        for name, response in responses.items():
            assert response["status"] == "completed", response
            mine = [r for r in server.requests if r.kind == "turn" and goals[name] in r.text()]
            meta = _manifest(serve, response)["metadata"]
            assert meta["usage"]["model_calls"] == len(mine) >= 3, (name, meta["usage"])
    finally:
        stop_quietly(serve)
