"""Prices: genai-prices for the models it knows, the user's table (``HOLON_PRICES``) first,
and never a guess for a model neither knows."""

from __future__ import annotations

import hashlib

import pytest

from holon_core.gateway.meter import price_call
from holon_core.gateway.price_table import PriceTableError, load_table
from holon_core.gateway.usage import Tokens
from holon_core.testing import make_task, run_agent

from .kit import REAL_KEY

TABLE = """\
models:
  fake-model-1:
    input: 3
    output: 15
    cache_read: 0.3
"""


def test_the_users_table_prices_cache_reads_apart_and_comes_first(tmp_path):
    path = tmp_path / "prices.yaml"
    path.write_text(TABLE + "  claude-sonnet-4-5: {input: 0, output: 0}\n")
    table = load_table(str(path))
    tokens = Tokens(input_tokens=1_000_000, output_tokens=100_000, cache_read_tokens=400_000)
    # 600k plain input at $3, 400k cache reads at $0.30, 100k output at $15
    assert price_call("anthropic-messages", "fake-model-1", tokens, table) == pytest.approx(3.42)
    assert price_call("anthropic-messages", "claude-sonnet-4-5", tokens, table) == 0.0
    priced = price_call("anthropic-messages", "claude-sonnet-4-5", tokens)  # genai-prices
    assert priced is not None and priced > 0
    assert price_call("anthropic-messages", "no-such-model", tokens, table) is None


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("models: {m: {input: 1}}\n", "needs `output`"),
        ("models: {m: {input: 1, output: -2}}\n", "must be a number >= 0"),
        ("models: {m: {input: 1, output: 2, cached: 1}}\n", "unknown keys cached"),
        ("prices: {}\n", "no `models:` mapping"),
        ("models: [\n", "not YAML or JSON"),
    ],
)
def test_a_bad_table_is_refused_naming_the_problem(tmp_path, text, named):
    path = tmp_path / "prices.yaml"
    path.write_text(text)
    with pytest.raises(PriceTableError) as caught:
        load_table(str(path))
    assert named in str(caught.value) and "HOLON_PRICES" in str(caught.value)


def claude_run(server, tmp_path, **extra):
    task = make_task(tmp_path / "task", goal="Create hello.txt", files={"README.md": "hi\n"})
    env = server.engine_env("claude") | {"ANTHROPIC_API_KEY": REAL_KEY}
    env |= {"HOLON_MODEL": "fake-model-1", "HOLON_CLAUDE_MAX_RETRIES": "1"} | extra
    return run_agent(task, "claude", env=env, timeout=120)


def test_a_model_only_the_table_knows_is_priced_by_the_gateway(
    engine_binary, scripted_provider, tmp_path
):
    engine_binary("claude")
    path = tmp_path / "prices.yaml"
    path.write_text(TABLE)
    server = scripted_provider("write-and-run", api_key=REAL_KEY)
    result = claude_run(server, tmp_path, HOLON_PRICES=str(path))
    assert result.manifest is not None and result.manifest["outcome"] == "success"
    meta = result.manifest["metadata"]
    cost, usage = meta["cost"], meta["usage"]
    expected = (usage["input_tokens"] * 3 + usage["output_tokens"] * 15) / 1_000_000
    assert cost["source"] == "gateway" and cost["usd"] == pytest.approx(expected)
    assert cost["prices"]["table"] == str(path)
    assert cost["prices"]["table_sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert "unpriced_models" not in cost
    assert cost["reported_usd"] > 0  # the engine's own figure stays beside it


def test_a_model_nobody_prices_is_not_guessed(engine_binary, scripted_provider, tmp_path):
    engine_binary("claude")
    server = scripted_provider("final-only", api_key=REAL_KEY)
    result = claude_run(server, tmp_path)
    meta = result.manifest["metadata"]
    assert meta["cost"]["unpriced_models"] == ["fake-model-1"]
    assert meta["cost"]["source"] == "reported"  # the engine's own report, said so
    assert any("no price for model fake-model-1" in w for w in meta["warnings"])


def test_a_bad_table_stops_the_run_before_the_engine(scripted_provider, tmp_path):
    path = tmp_path / "prices.yaml"
    path.write_text("models: {fake-model-1: {input: 1}}\n")
    server = scripted_provider("final-only", api_key=REAL_KEY)
    result = claude_run(server, tmp_path, HOLON_PRICES=str(path))
    assert result.exit_code == 1
    assert result.manifest["metadata"]["reason"] == "invalid_input"
    assert (
        "HOLON_PRICES" in result.manifest["error"] and "needs `output`" in result.manifest["error"]
    )
    assert server.requests == []
