"""The scripted provider over real HTTP: turn derivation, side calls, failure gates, recording."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from typing import Any

import pytest
from holon_conformance.provider import ScriptedProvider, load_scenario, parse_scenario

pytestmark = pytest.mark.usefixtures("no_leftover_processes")

WS = "/tmp/holon-ws"


def post(
    provider: ScriptedProvider,
    path: str,
    body: dict[str, Any],
    headers: dict[str, str] | None = None,
    timeout: float = 10.0,
) -> tuple[int, Any]:
    """(status, parsed JSON or raw text) for one POST."""
    request = urllib.request.Request(
        provider.url + path,
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json", **(headers or {})},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            raw = response.read().decode()
            status = response.status
    except urllib.error.HTTPError as exc:
        raw, status = exc.read().decode(), exc.code
    try:
        return status, json.loads(raw)
    except ValueError:
        return status, raw


def claude_body(tool_calls: int = 0, stream: bool = False, **extra: Any) -> dict[str, Any]:
    """An Anthropic Messages request after ``tool_calls`` tool calls, like Claude Code sends."""
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": [{"type": "text", "text": "do it"}]}
    ]
    for i in range(tool_calls):
        messages.append(
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": f"t{i}", "name": "Bash", "input": {}}],
            }
        )
        messages.append(
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{i}"}]}
        )
    return {
        "model": "claude-x",
        "system": [{"type": "text", "text": f"Primary working directory: {WS}"}],
        "tools": [{"name": n, "input_schema": {}} for n in ("Write", "Bash", "Skill")],
        "messages": messages,
        "stream": stream,
        **extra,
    }


def codex_body(tools: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "model": "gpt-5.5",
        "input": [
            {
                "type": "message",
                "role": "user",
                "content": [
                    {
                        "type": "input_text",
                        "text": f"<environment_context><cwd>{WS}</cwd></environment_context>",
                    }
                ],
            },
        ],
        "tools": tools,
        "stream": True,
    }


def sse_events(text: str) -> list[dict[str, Any]]:
    return [json.loads(line[5:]) for line in text.splitlines() if line.startswith("data:")]


def test_turn_is_derived_from_the_conversation_not_from_a_counter(scripted_provider):
    provider = scripted_provider("write-and-run")
    first = post(provider, "/v1/messages", claude_body(0))
    retried = post(provider, "/v1/messages", claude_body(0))
    assert first == retried
    status, message = first
    assert status == 200
    call = message["content"][-1]
    assert call["name"] == "Write"
    assert call["input"] == {"file_path": f"{WS}/hello.txt", "content": "hello from holon\n"}
    _, second = post(provider, "/v1/messages", claude_body(1))
    assert second["content"][-1]["input"]["command"] == "cat hello.txt"
    _, last = post(provider, "/v1/messages", claude_body(2))
    assert last["stop_reason"] == "end_turn"
    assert [r.turn for r in provider.requests] == [0, 0, 1, 2]


def test_streamed_claude_reply_carries_the_tool_call_as_json_deltas(scripted_provider):
    provider = scripted_provider("write-and-run")
    status, text = post(provider, "/v1/messages?beta=true", claude_body(0, stream=True))
    assert status == 200
    events = sse_events(text)
    assert events[0]["type"] == "message_start"
    assert events[-1]["type"] == "message_stop"
    deltas = [e["delta"] for e in events if e["type"] == "content_block_delta"]
    assert deltas[0] == {"type": "text_delta", "text": "I will create hello.txt."}
    assert json.loads(deltas[1]["partial_json"])["file_path"] == f"{WS}/hello.txt"
    assert provider.requests[0].path == "/v1/messages"
    assert provider.requests[0].query == {"beta": "true"}


def test_side_calls_are_answered_from_their_schema_without_moving_the_script(scripted_provider):
    provider = scripted_provider("write-and-run")
    router_schema = {
        "type": "OBJECT",
        "properties": {
            "complexity_reasoning": {"type": "STRING"},
            "complexity_score": {"type": "INTEGER", "minimum": 1, "maximum": 100},
        },
    }
    body = {
        "contents": [{"role": "user", "parts": [{"text": "route me"}]}],
        "generationConfig": {
            "responseMimeType": "application/json",
            "responseJsonSchema": router_schema,
        },
    }
    status, answer = post(provider, "/v1beta/models/flash-lite:generateContent", body)
    assert status == 200
    routed = json.loads(answer["candidates"][0]["content"]["parts"][0]["text"])
    assert routed == {"complexity_reasoning": "scripted", "complexity_score": 1}

    title_schema = {
        "type": "object",
        "properties": {"title": {"type": "string"}},
        "required": ["title"],
    }
    fmt = {"format": {"type": "json_schema", "schema": title_schema}}
    _, titled = post(provider, "/v1/messages", claude_body(0, output_config=fmt))
    assert json.loads(titled["content"][0]["text"]) == {"title": "scripted"}

    kinds = [(r.api, r.kind, r.turn) for r in provider.requests]
    assert kinds == [("google-generate-content", "aux", None), ("anthropic-messages", "aux", None)]
    _, first_turn = post(provider, "/v1/messages", claude_body(0))
    assert first_turn["content"][-1]["name"] == "Write"


def test_error_gate_is_served_exactly_times_per_engine_then_the_script_goes_on(scripted_provider):
    scenario = parse_scenario(
        [{"error": {"status": 429}, "times": 2}, {"final": "recovered"}], "twice-429"
    )
    provider = scripted_provider(scenario)
    statuses = [post(provider, "/v1/messages", claude_body(0))[0] for _ in range(3)]
    assert statuses == [429, 429, 200]
    status, body = post(
        provider,
        "/v1beta/models/m:generateContent",
        {"contents": [{"role": "user", "parts": [{"text": "x"}]}]},
    )
    assert status == 429
    assert body["error"]["status"] == "RESOURCE_EXHAUSTED"
    provider.reset()
    assert provider.requests == []
    assert post(provider, "/v1/messages", claude_body(0))[0] == 429


def test_forever_error_never_recovers(scripted_provider):
    provider = scripted_provider("auth-401")
    for _ in range(4):
        status, body = post(provider, "/v1/messages", claude_body(0))
        assert status == 401
        assert body["error"]["type"] == "authentication_error"


def test_codex_gets_apply_patch_when_offered_and_a_shell_write_when_not(scripted_provider):
    provider = scripted_provider("write-and-run")
    tools = [
        {"type": "custom", "name": "apply_patch"},
        {"type": "function", "name": "exec_command"},
    ]
    _, text = post(provider, "/v1/responses", codex_body(tools))
    items = [e["item"] for e in sse_events(text) if e["type"] == "response.output_item.done"]
    assert items[-1]["type"] == "custom_tool_call"
    assert items[-1]["input"] == (
        "*** Begin Patch\n*** Add File: hello.txt\n+hello from holon\n*** End Patch\n"
    )
    assert sse_events(text)[-1]["type"] == "response.completed"

    _, text = post(provider, "/v1/responses", codex_body([tools[1]]))
    call = [e["item"] for e in sse_events(text) if e["type"] == "response.output_item.done"][-1]
    assert call["name"] == "exec_command"
    args = json.loads(call["arguments"])
    assert args["workdir"] == WS
    assert "hello from holon" in args["cmd"]
    assert any("no apply_patch" in w for w in provider.requests[-1].warnings)


def test_a_tool_the_engine_did_not_offer_is_logged_as_a_warning(scripted_provider, caplog):
    provider = scripted_provider("use-skill")
    body = claude_body(0)
    body["tools"] = [{"name": "Bash", "input_schema": {}}]
    with caplog.at_level("WARNING", logger="holon_conformance.provider"):
        _, message = post(provider, "/v1/messages", body)
    assert message["content"][-1]["name"] == "Skill"
    assert "did not offer tool 'Skill'" in provider.requests[0].warnings[0]
    assert "did not offer tool 'Skill'" in caplog.text


def test_raw_tool_calls_and_turn_filters_take_a_wire_api_or_an_installed_engine_name(
    scripted_provider,
):
    call = {"name": "Bash", "input": {"command": "true"}}
    provider = scripted_provider(parse_scenario([{"tool": {"anthropic-messages": call}}], "raw"))
    assert (
        post(provider, "/v1/messages", claude_body(0))[1]["content"][-1]["input"] == call["input"]
    )
    provider.set_scenario(parse_scenario([{"tool": {"codex": {"name": "x", "arguments": {}}}}]))
    _, text = post(provider, "/v1/responses", codex_body([{"type": "function", "name": "x"}]))
    assert sse_events(text)[-1]["response"]["output"][-1]["name"] == "x"
    _, message = post(provider, "/v1/messages", claude_body(0))
    assert message["content"][-1]["type"] == "text"
    assert "no raw call for anthropic-messages" in provider.requests[-1].warnings[0]
    assert len(provider.turn_requests("claude")) == 2
    assert len(provider.turn_requests("openai-responses")) == 1
    with pytest.raises(Exception, match="unknown engine"):
        provider.turn_requests("no-such-engine")


def test_recording_redacts_keys_and_mirrors_json_lines(tmp_path):
    log = tmp_path / "requests.jsonl"
    with ScriptedProvider(load_scenario("final-only"), log_path=log) as provider:
        post(provider, "/v1/messages", claude_body(0), {"x-api-key": "sk-secret-123"})
        post(provider, "/v1beta/models/m:countTokens?key=sk-secret-456", {"contents": []})
        with urllib.request.urlopen(provider.url + "/v1beta/models", timeout=5) as response:
            assert json.load(response)["models"]
    text = log.read_text()
    assert "sk-secret" not in text
    lines = [json.loads(line) for line in text.splitlines()]
    assert [(x["api"], x["kind"]) for x in lines] == [
        ("anthropic-messages", "turn"),
        ("google-generate-content", "count"),
        ("google-generate-content", "models"),
    ]
    assert lines[0]["headers"]["x-api-key"] == "[redacted]"
    assert lines[0]["body"]["model"] == "claude-x"


def test_concurrent_requests_and_a_stall_released_by_stop():
    provider = ScriptedProvider(parse_scenario([{"stall": {}, "times": 1}, {"final": "ok"}]))
    provider.start()
    results: list[object] = []

    def stalled():
        try:
            results.append(post(provider, "/v1/messages", claude_body(0), timeout=30))
        except (OSError, urllib.error.URLError) as exc:
            results.append(exc)

    thread = threading.Thread(target=stalled)
    thread.start()
    while not provider.requests:
        threading.Event().wait(0.01)
    # The stall holds one connection; another request is served meanwhile.
    assert post(provider, "/v1/messages", claude_body(0))[1]["content"][0]["text"] == "ok"
    assert [r.served for r in provider.requests] == ["stall", "reply"]
    provider.stop()
    thread.join(timeout=10)
    assert not thread.is_alive()
    assert not isinstance(results[0], tuple)  # no answer ever came: the connection closed


def test_drop_closes_the_connection_mid_stream(scripted_provider):
    provider = scripted_provider("drop")
    host, port = provider.url.removeprefix("http://").split(":")
    payload = json.dumps(claude_body(0, stream=True)).encode()
    with socket.create_connection((host, int(port)), timeout=10) as conn:
        conn.sendall(
            b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            + f"Content-Length: {len(payload)}\r\n\r\n".encode()
            + payload
        )
        received = b""
        while chunk := conn.recv(65536):
            received += chunk
    head, _, body = received.partition(b"\r\n\r\n")
    assert b"200" in head.split(b"\r\n")[0]
    assert b"Content-Length: 1048576" in head
    assert len(body) < 100


def test_relative_paths_fall_back_to_the_configured_workdir(scripted_provider):
    provider = scripted_provider("write-and-run", workdir="/srv/fallback")
    body = claude_body(0)
    body["system"] = [{"type": "text", "text": "no workspace line here"}]
    _, message = post(provider, "/v1/messages", body)
    assert message["content"][-1]["input"]["file_path"] == "/srv/fallback/hello.txt"


def test_engine_env_points_each_engine_at_the_provider(scripted_provider):
    provider = scripted_provider("final-only")
    assert provider.engine_env("claude")["ANTHROPIC_BASE_URL"] == provider.url
    assert provider.engine_env("codex")["OPENAI_BASE_URL"] == provider.url + "/v1"
    assert provider.engine_env("gemini")["GOOGLE_GEMINI_BASE_URL"] == provider.url
    assert provider.url.startswith("http://127.0.0.1:")


def test_the_command_line_server_serves_until_sigterm(tmp_path):
    log = tmp_path / "log.jsonl"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "holon_conformance.provider",
            "--scenario",
            "final-only",
            "--log",
            str(log),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().rsplit(" ", 1)[-1].strip()
        with urllib.request.urlopen(url + "/v1beta/models", timeout=10) as response:
            assert response.status == 200
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 0
        proc.stdout.close()  # type: ignore[union-attr]
    assert json.loads(log.read_text())["kind"] == "models"
