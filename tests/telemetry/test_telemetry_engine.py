"""The real Claude Code against the scripted model server, through holon's model gateway,
with the OTLP endpoint set: chat spans per model call (the gateway's record: model, tokens,
cost, real times), execute_tool spans per tool call, all under the run's invoke_agent span;
the engine's shell sees TRACEPARENT naming that span."""

from __future__ import annotations

import json

from holon_core.testing import make_task, run_agent

from .kit import (
    CHAT,
    EXECUTE_TOOL,
    INPUT_TOKENS,
    OUTPUT_TOKENS,
    PROVIDER,
    REQUEST_MODEL,
    TOOL_NAME,
    children,
    one_agent_span,
)
from .receiver import otlp_receiver

MODEL = "claude-sonnet-4-5"  # a model genai-prices knows: the calls have a cost
SCENARIO = """
turns:
  - say: "I will create hello.txt."
    write_file: {path: hello.txt, content: "hello from holon\\n"}
  - run_shell: {command: "echo TP=$TRACEPARENT"}
  - final: {text: "Created hello.txt."}
"""


def test_claude_run_sends_chat_and_tool_spans(engine_binary, scripted_provider, tmp_path):
    engine_binary("claude")
    scenario = tmp_path / "traced.yaml"
    scenario.write_text(SCENARIO)
    server = scripted_provider(str(scenario))
    task = make_task(tmp_path, goal="Create hello.txt", files={"README.md": "hi\n"})
    with otlp_receiver() as receiver:
        env = server.engine_env("claude") | {
            "HOLON_MODEL": MODEL,
            "HOLON_CLAUDE_MAX_RETRIES": "1",
            "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url,
        }
        result = run_agent(task, "claude", env=env, timeout=240)
    assert result.exit_code == 0, result.stderr
    assert result.manifest is not None
    meta = result.manifest["metadata"]
    spans = receiver.spans
    agent = one_agent_span(spans)
    assert agent.name == "invoke_agent claude"
    assert agent.attributes[PROVIDER] == "anthropic"
    assert agent.attributes[REQUEST_MODEL] == meta["engine"]["model"]
    assert agent.attributes[INPUT_TOKENS] == meta["usage"]["input_tokens"] > 0
    assert agent.attributes[OUTPUT_TOKENS] == meta["usage"]["output_tokens"] > 0
    assert agent.attributes["holon.cost.usd"] == meta["cost"]["usd"] > 0

    lines = (result.output_dir / "evidence" / "model-calls.ndjson").read_text().splitlines()
    calls = [json.loads(line) for line in lines if json.loads(line)["kind"] == "model"]
    chats = children(spans, agent, CHAT)
    assert len(chats) == len(calls) >= 3
    for chat, call in zip(sorted(chats, key=lambda s: s.end_ns), calls, strict=True):
        assert chat.name == f"chat {call['model']}" and chat.kind == "SPAN_KIND_CLIENT"
        assert chat.attributes[PROVIDER] == "anthropic"
        assert chat.attributes[REQUEST_MODEL] == call["model"]
        assert chat.attributes[INPUT_TOKENS] == call["usage"]["input_tokens"]
        assert chat.attributes[OUTPUT_TOKENS] == call["usage"]["output_tokens"]
        assert chat.attributes["holon.cost.usd"] == call["cost_usd"]
        assert chat.attributes["server.address"] == "127.0.0.1"
        assert abs((chat.end_ns - chat.start_ns) / 1e6 - call["latency_ms"]["total"]) < 1
    assert sum(c.attributes[INPUT_TOKENS] for c in chats) == meta["usage"]["input_tokens"]

    tools = children(spans, agent, EXECUTE_TOOL)
    called = [e for e in result.events if e["type"] == "tool_call"]
    assert [t.attributes[TOOL_NAME] for t in tools] == [e["tool"] for e in called]
    assert len(tools) >= 2
    assert len(spans) == 1 + len(chats) + len(tools)
    # Claude Code's shell saw TRACEPARENT naming the run's span (its output went to the model)
    sent = "\n".join(r.text() for r in server.requests)
    assert f"TP=00-{agent.trace_id}-{agent.span_id}-01" in sent
