"""A serve session recorded whole (HOLON_RECORD on holon-agent serve): the real Claude Code
against the scripted model server over HTTPS, two chained turns, one cassette whose parts
are the turns (response ids, the previous_response_id chain) and whose calls name them."""

from __future__ import annotations

import os
import signal

import pytest

from holon_core.cassette.format import read_cassette
from holon_core.cli.main import main
from holon_core.serve.client import start_server
from tests.gateway.kit import REAL_KEY
from tests.gateway.test_gateway_engines import engine_env
from tests.serve.conftest import start, stop_quietly

pytestmark = pytest.mark.engine("claude")


def test_a_session_is_one_cassette_with_a_part_per_turn(
    engine_binary, https_provider, ca_file, tmp_path, capsys
):
    engine_binary("claude")
    server = https_provider("write-and-run")
    target = tmp_path / "cassettes" / "session"
    env = {k: v for k, v in engine_env(server, "claude", ca_file).items() if k != "HOLON_GATEWAY"}
    env |= {"HOLON_TIMEOUT": "120"}
    serve = start(tmp_path / "s", "--engine", "claude", "--record", str(target), env=env)
    (serve.workspace / "README.md").write_text("hello\n")
    try:
        first = serve.client.create("Create hello.txt")
        assert first["status"] == "completed", first
        after_first = len(server.requests)
        second = serve.client.create("Create hello.txt again", previous_response_id=first["id"])
        assert second["status"] == "completed", second
        assert not target.exists()  # written once, when the session ends
        serve.process.send_signal(signal.SIGTERM)
        assert serve.process.wait(timeout=60) == 0
    finally:
        stop_quietly(serve)
    cassette = read_cassette(target)
    parts = cassette.info.parts
    assert [p["id"] for p in parts] == [first["id"], second["id"]]
    assert [p["previous_response_id"] for p in parts] == [None, first["id"]]
    assert [p["outcome"] for p in parts] == ["success", "success"]
    assert [p["calls"] for p in parts] == [after_first, len(server.requests) - after_first]
    assert [c.part for c in cassette.calls] == [first["id"]] * after_first + [second["id"]] * (
        len(server.requests) - after_first
    )
    # each turn's diff.patch is in the store; diff.patch is the last turn's
    assert b"hello.txt" in cassette.store.get(parts[0]["diff_sha256"])
    assert cassette.diff().encode() == cassette.store.get(parts[1]["diff_sha256"])
    assert main(["cassette", "show", str(target)]) == 0
    shown = capsys.readouterr().out
    assert f"turn 1     {first['id']}: success (ok)" in shown
    assert f"turn 2     {second['id']} after {first['id']}: success (ok)" in shown
    assert f"[{second['id']}]" in shown  # each call names its turn
    everything = b"".join(p.read_bytes() for p in target.rglob("*") if p.is_file())
    assert REAL_KEY.encode() not in everything


def test_recording_a_session_without_a_gateway_is_refused_at_start(tmp_path, scripted_provider):
    server = scripted_provider("write-and-run")
    root = tmp_path / "s"
    args = ["--engine", "claude"]
    for name in ("input", "output", "workspace", "state"):
        (root / name).mkdir(parents=True)
        args += [f"--{name}", str(root / name)]
    env = dict(os.environ) | server.engine_env("claude")
    env |= {"HOLON_GATEWAY": "off", "HOLON_RECORD": str(tmp_path / "c")}
    with pytest.raises(RuntimeError) as refused:
        start_server(root / "agent.sock", args, env=env)
    assert "holon-agent serve exited 1" in str(refused.value)
    assert "records the model calls the gateway sees" in str(refused.value)
    assert "HOLON_GATEWAY is off" in str(refused.value)
    assert not (tmp_path / "c").exists()
