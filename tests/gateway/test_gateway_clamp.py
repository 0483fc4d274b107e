"""Output-limit clamping: before a model call goes upstream, its output limit is lowered to what
the budget still allows, so the call that crosses a limit overshoots by its input at most.

The upstream here answers every call with as many output tokens as the request allowed (the
worst case a model can do), in each wire API's own usage fields."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest

from holon_core.gateway.budget import Limits
from holon_core.gateway.session import open_gateway

from .kit import REAL_KEY, WireAdapter

MODEL = "clamp-model-1"
INPUT = 10  # input tokens of every call
PRICES = "models:\n  clamp-model-1: {input: 1.0, output: 10.0}\n"  # USD per million
OUT_PRICE, IN_PRICE = 10.0 / 1e6, 1.0 / 1e6

#: Per API: the path, the request's output limit (read, set), and the answer's usage.
APIS: dict[str, Any] = {
    "anthropic": (
        "/v1/messages",
        lambda b: b.get("max_tokens"),
        lambda n: {"model": MODEL, "max_tokens": n, "messages": []},
        lambda n: {
            "type": "message",
            "model": MODEL,
            "usage": {"input_tokens": INPUT, "output_tokens": n},
        },
    ),
    "responses": (
        "/v1/responses",
        lambda b: b.get("max_output_tokens"),
        lambda n: {"model": MODEL, "input": "hi"} | ({"max_output_tokens": n} if n else {}),
        lambda n: {
            "type": "response.completed",
            "response": {"model": MODEL, "usage": {"input_tokens": INPUT, "output_tokens": n}},
        },
    ),
    "chat": (
        "/v1/chat/completions",
        lambda b: b.get("max_completion_tokens", b.get("max_tokens")),
        lambda n: {"model": MODEL, "messages": [], "max_tokens": n},
        lambda n: {"model": MODEL, "usage": {"prompt_tokens": INPUT, "completion_tokens": n}},
    ),
    "gemini": (
        f"/v1beta/models/{MODEL}:generateContent",
        lambda b: b.get("generationConfig", {}).get("maxOutputTokens"),
        lambda n: {"contents": []} | ({"generationConfig": {"maxOutputTokens": n}} if n else {}),
        lambda n: {"usageMetadata": {"promptTokenCount": INPUT, "candidatesTokenCount": n}},
    ),
}
UNLIMITED = 64000  # what a model writes when the request sets no limit


class Upstream(ThreadingHTTPServer):
    """Answers each call with all the output its request allowed; keeps the limits seen."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.limits: list[int | None] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(BaseHTTPRequestHandler):
    server: Upstream

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        kind = next(k for k, (path, *_) in APIS.items() if self.path.startswith(path))
        _, read, _, answer = APIS[kind]
        limit = read(body)
        self.server.limits.append(limit)
        data = answer(limit or UNLIMITED)
        if kind == "responses":  # the Responses API streams its usage as an event
            payload = f"event: response.completed\ndata: {json.dumps(data)}\n\n".encode()
        else:
            payload = json.dumps(data).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def upstream() -> Iterator[Upstream]:
    server = Upstream()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def _gateway(upstream, tmp_path, limits):
    table = tmp_path / "prices.yaml"
    table.write_text(PRICES)
    env = {
        "ANTHROPIC_BASE_URL": upstream.url,
        "ANTHROPIC_API_KEY": REAL_KEY,
        "HOLON_PRICES": str(table),
    }
    lines: list[str] = []
    session = open_gateway(WireAdapter(), env, lines.append, limits)
    assert session is not None and session.server is not None
    return session, lines


def _call(session, kind: str, limit: int | None) -> httpx.Response:
    path, _, make, _ = APIS[kind]
    url = session.engine_env["ANTHROPIC_BASE_URL"] + path
    key = session.engine_env["ANTHROPIC_API_KEY"]
    return httpx.post(url, json=make(limit), headers={"x-api-key": key}, timeout=30)


@pytest.mark.parametrize("kind", sorted(APIS))
def test_a_cost_budget_clamps_the_output_so_the_overshoot_is_the_input_at_most(
    kind, upstream, tmp_path
):
    session, lines = _gateway(upstream, tmp_path, Limits(max_cost_usd=0.001))
    try:
        first = _call(session, kind, 4096 if kind != "responses" else None)
        assert first.status_code == 200, first.text
        second = _call(session, kind, 4096)
        assert second.status_code == 400  # the budget is spent
    finally:
        session.close()
    # $0.001 buys 100 output tokens at $10 per million: the upstream was asked for 100
    assert upstream.limits == [100]
    assert session.budget is not None
    spent = session.budget.record()["spent"]["cost_usd"]
    assert 0.001 <= spent <= 0.001 + INPUT * IN_PRICE + 1e-9
    first_line = json.loads(lines[0])
    assert first_line["output_limit_clamped_to"] == 100
    assert first_line["usage"]["output_tokens"] == 100


@pytest.mark.parametrize("kind", sorted(APIS))
def test_a_token_budget_clamps_to_the_tokens_left_and_leaves_a_lower_limit_alone(
    kind, upstream, tmp_path
):
    session, lines = _gateway(upstream, tmp_path, Limits(max_tokens=500))
    try:
        for limit in (100, 4096, 4096):
            _call(session, kind, limit)
    finally:
        session.close()
    # 100 is within the budget (untouched); after 10 + 100 spent, 390 are left; then none
    assert upstream.limits == [100, 390]
    assert session.budget is not None
    assert session.budget.record()["spent"]["tokens"] == 500 + INPUT  # input: the overshoot
    assert "output_limit_clamped_to" not in json.loads(lines[0])


def test_without_a_budget_the_request_passes_unchanged(upstream, tmp_path):
    session, _ = _gateway(upstream, tmp_path, None)
    try:
        _call(session, "anthropic", 4096)
    finally:
        session.close()
    assert upstream.limits == [4096]


def test_an_anthropic_thinking_budget_is_kept_under_the_clamped_limit():
    from holon_core.gateway.apis import ANTHROPIC_MESSAGES
    from holon_core.gateway.clamp import clamp_output

    body: dict[str, Any] = {
        "max_tokens": 32000,
        "thinking": {"type": "enabled", "budget_tokens": 16000},
    }
    assert clamp_output(ANTHROPIC_MESSAGES, body, 5000) == 5000
    assert body["thinking"]["budget_tokens"] == 4999
    body = {"max_tokens": 32000, "thinking": {"type": "enabled", "budget_tokens": 16000}}
    clamp_output(ANTHROPIC_MESSAGES, body, 800)
    assert body["max_tokens"] == 800 and "thinking" not in body  # below the API's minimum
