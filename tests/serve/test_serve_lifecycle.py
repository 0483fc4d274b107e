"""Starting, stopping and restarting ``holon-agent serve``; its socket; lazy web imports."""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
import subprocess
import sys

from holon_core.serve.client import parse_sse, serve_command

from .conftest import start, stop_quietly


def _gone(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return True
    return False


def test_shutdown_then_restart_keeps_sessions_and_responses(tmp_path):
    first = start(tmp_path)
    try:
        mode = stat.S_IMODE(first.socket.stat().st_mode)
        assert mode == 0o600, oct(mode)
        first.script("r1", [{"say": "remember 42"}])
        turn1 = first.client.create("remember a number", holon={"turn_id": "r1"})
        assert first.stop() == 0
    finally:
        stop_quietly(first)
    assert not first.socket.exists()
    assert _gone(first.process.pid)  # the server's whole process group is gone

    skill = tmp_path / "skills" / "greet"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: greet\ndescription: Say hello.\n---\nHello.\n")
    stored = tmp_path / "state" / "responses" / f"{turn1['id']}.json"
    crashed = json.loads(stored.read_text())
    crashed["response"] |= {"id": "resp_crashed", "status": "in_progress"}
    stored.with_name("resp_crashed.json").write_text(json.dumps(crashed))
    second = start(tmp_path, "--skill", str(skill))
    try:
        interrupted = second.client.get("resp_crashed")  # left by a server that died
        assert interrupted["status"] == "failed"
        assert interrupted["error"]["code"] == "interrupted"
        assert second.client.health()["skills"] == ["greet"]
        assert second.client.get(turn1["id"]) == turn1
        second.script("r2", [{"say": "it was 42"}])
        turn2 = second.client.create(
            "which number?", previous_response_id=turn1["id"], holon={"turn_id": "r2"}
        )
        assert turn2["holon"]["session_id"] == turn1["holon"]["session_id"]
        record = json.loads((second.turn_dir("r2") / "turn.json").read_text())
        assert record["continuation"]["mode"] == "transcript"
        assert "remember 42" in (second.turn_dir("r2") / "transcript.md").read_text()
        assert second.client.health()["turns_served"] == 1
    finally:
        stop_quietly(second)


def test_sigterm_cancels_the_turn_records_it_and_exits_zero(tmp_path):
    server = start(tmp_path)
    try:
        server.script("long", [{"say": "busy"}, {"sleep": 60}])
        with server.raw() as http:
            body = {"input": "long", "stream": True, "holon": {"turn_id": "long"}}
            with http.stream("POST", "/v1/responses", json=body, timeout=None) as stream:
                events = parse_sse(stream.iter_lines())
                for event in events:
                    if event["type"] == "response.output_text.delta":
                        break
                server.process.send_signal(signal.SIGTERM)
                rest = [e["type"] for e in events]
        assert rest[-1] == "response.failed"
        assert server.process.wait(timeout=60) == 0
        manifest = json.loads((server.turn_dir("long") / "manifest.json").read_text())
        assert manifest["metadata"]["reason"] == "cancelled"
        assert not server.socket.exists()
        assert _gone(server.process.pid)
    finally:
        stop_quietly(server)


def test_a_live_socket_is_refused_a_stale_one_replaced(tmp_path):
    server = start(tmp_path / "a")
    try:
        clash = subprocess.run(
            serve_command(server.socket, ["--engine", "replay", "--state", str(tmp_path)]),
            capture_output=True,
            check=False,
            text=True,
            timeout=60,
        )
        assert clash.returncode == 1
        assert "already listening" in clash.stderr and "fix:" in clash.stderr
        assert server.client.health()["status"] == "ok"  # untouched
    finally:
        stop_quietly(server)

    stale = tmp_path / "b" / "ipc" / "agent.sock"
    stale.parent.mkdir(parents=True)
    dead = socket.socket(socket.AF_UNIX)
    dead.bind(str(stale))
    dead.close()  # the file stays, nobody listens: what a killed server leaves
    revived = start(tmp_path / "b")
    try:
        assert revived.client.health()["status"] == "ok"
    finally:
        stop_quietly(revived)

    plain = tmp_path / "c.sock"
    plain.write_text("not a socket")
    refused = subprocess.run(
        serve_command(plain, ["--engine", "replay", "--state", str(tmp_path)]),
        capture_output=True,
        check=False,
        text=True,
        timeout=60,
    )
    assert refused.returncode == 1 and "not a socket" in refused.stderr
    assert plain.read_text() == "not a socket"


def test_serve_without_a_state_dir_says_how_to_give_one(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOLON_")}
    result = subprocess.run(
        serve_command(tmp_path / "s.sock", ["--engine", "replay"]),
        capture_output=True,
        check=False,
        text=True,
        env=env,
        timeout=60,
    )
    assert result.returncode == 1
    assert "--state DIR" in result.stderr and not (tmp_path / "s.sock").exists()


def test_one_shot_and_probe_never_import_the_web_stack(tmp_path):
    task = tmp_path / "input"
    (task / "context").mkdir(parents=True)
    (task / "spec.yaml").write_text('version: v1\nkind: Holon\ngoal: "say hi"\n')
    (task / "context" / "replay.yaml").write_text("- say: hi\n")
    (tmp_path / "ws").mkdir()
    flags = ["--engine", "replay", "--input", str(task), "--workspace", str(tmp_path / "ws")]
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOLON_")}
    for extra in (["--probe"], ["--output", str(tmp_path / "out")]):
        result = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "holon_core.agent", *flags, *extra],
            capture_output=True,
            check=False,
            text=True,
            env=env,
            timeout=120,
        )
        assert result.returncode == 0, result.stderr[-2000:]
        imported = {line.rsplit("|", 1)[-1].strip() for line in result.stderr.splitlines()}
        web = sorted(m for m in imported if m.split(".")[0] in ("uvicorn", "starlette", "httpx"))
        assert web == [], f"{extra}: {web}"
        assert "holon_core.agent.main" in imported


def test_a_credential_is_written_nowhere(tmp_path):
    secret = "sk-serve-test-0123456789abcdef"
    server = start(tmp_path, env={"SERVE_TEST_API_KEY": secret})
    try:
        server.script("s1", [{"say": f"the key is {secret}"}, {"run": f"echo {secret}"}])
        events = list(
            server.client.stream(
                f"use {secret}", instructions=f"never print {secret}", holon={"turn_id": "s1"}
            )
        )
        server.script("s2", [{"say": "ok"}])
        server.client.create(
            "again", previous_response_id=events[-1]["response"]["id"], holon={"turn_id": "s2"}
        )
    finally:
        stop_quietly(server)
    assert events[-1]["type"] == "response.completed"
    assert secret not in json.dumps(events) and "***REDACTED***" in json.dumps(events)
    written = [p for p in tmp_path.rglob("*") if p.is_file() and p.suffix != ".yaml"]
    assert any(p.name == "transcript.md" for p in written)
    leaks = [str(p) for p in written if secret.encode() in p.read_bytes()]
    assert leaks == []
