"""Every engine's real CLI through the gateway, with the scripted model server as the HTTPS
upstream (test CA) that takes only the real key: the run works, the manifest carries the
gateway's usage and cost, the engine's environment holds a placeholder and never the key,
and upstream failures end the run with the reason codes they had without the gateway."""

from __future__ import annotations

import json

import pytest

from holon_core.testing import make_task, run_agent

from .kit import REAL_KEY

#: A priced model each engine takes, and the settings its own tests use (short retries).
ENGINES = {
    "claude": ("claude-sonnet-4-5", {"HOLON_CLAUDE_MAX_RETRIES": "1"}),
    # 60 s: once in a full suite on a loaded 2-core machine codex (in its room) printed
    # nothing for 20 s after its first tool call, with one model call recorded; never seen
    # idle or with four runs side by side (8 of 8). Issue 32's note says it is not explained.
    "codex": ("gpt-5.5", {"HOLON_SILENCE_TIMEOUT": "60"}),
    "gemini": ("gemini-2.5-flash", {"HOLON_GEMINI_MAX_ATTEMPTS": "1"}),
    "opencode": ("claude-sonnet-4-5", {"HOLON_OPENCODE_MAX_RETRIES": "1"}),
}


def engine_env(server, engine: str, ca_file, gateway: str = "on") -> dict[str, str]:
    env = server.engine_env(engine)
    fake = {v for k, v in env.items() if not v.startswith(server.url)}
    env = {k: (REAL_KEY if v in fake else v) for k, v in env.items()}
    model, extra = ENGINES[engine]
    return (
        env
        | extra
        | {
            "HOLON_MODEL": model,
            "HOLON_GATEWAY": gateway,
            "SSL_CERT_FILE": str(ca_file),
        }
    )


def run(engine, server, ca_file, tmp_path, name="task", gateway="on"):
    task = make_task(tmp_path / name, goal="Create hello.txt", files={"README.md": "hi\n"})
    env = engine_env(server, engine, ca_file, gateway)
    return run_agent(task, engine, env=env, timeout=240)


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_a_run_through_the_gateway_is_metered_and_priced(
    engine, engine_binary, https_provider, ca_file, tmp_path, assert_valid_manifest
):
    engine_binary(engine)
    server = https_provider("write-and-run")
    result = run(engine, server, ca_file, tmp_path)
    manifest = assert_valid_manifest(result.manifest)
    assert manifest["outcome"] == "success", result.stderr
    meta = manifest["metadata"]
    assert meta["gateway"]["state"] == "on"
    assert meta["gateway"]["upstream"].startswith(server.url)
    usage = meta["usage"]
    assert usage["source"] == "gateway"
    turns = [r for r in server.requests if r.kind == "turn"]
    assert usage["model_calls"] >= len(turns) >= 3
    assert usage["input_tokens"] >= 100 * len(turns) and usage["output_tokens"] >= 20 * len(turns)
    model = ENGINES[engine][0]
    assert model in [m["model"] for m in usage["models"]]
    assert meta["cost"]["source"] == "gateway" and meta["cost"]["usd"] > 0
    assert meta["cost"]["prices"]["library"] == "genai-prices"
    calls = (result.output_dir / "evidence" / "model-calls.ndjson").read_text().splitlines()
    assert len(calls) == usage["calls"]
    assert all(json.loads(line)["status"] == 200 for line in calls)


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_a_tool_that_dumps_the_environment_finds_no_real_key(
    engine, engine_binary, https_provider, ca_file, tmp_path
):
    engine_binary(engine)
    scenario = tmp_path / "dump.yaml"
    scenario.write_text(
        "turns:\n  - run_shell: {command: 'env | sort'}\n  - final: {text: dumped}\n"
    )
    server = https_provider(str(scenario))
    result = run(engine, server, ca_file, tmp_path)
    assert result.manifest is not None and result.manifest["outcome"] == "success", result.stderr
    sent = "\n".join(r.text() for r in server.requests)
    # The dump reached the model (the placeholder is in it), the real key is nowhere.
    assert "holon-placeholder-" in sent
    assert REAL_KEY not in sent
    assert REAL_KEY not in (result.output_dir / "evidence" / "events.ndjson").read_text()


@pytest.mark.parametrize("status", [429, 500])
@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_upstream_failures_keep_their_reason_codes(
    engine, status, engine_binary, https_provider, scripted_provider, ca_file, tmp_path
):
    """The same failure straight from the model server over plain HTTP (today's setup) and
    through the gateway from the HTTPS one: the same exit code and reason."""
    engine_binary(engine)
    scenario = tmp_path / f"fail-{status}.yaml"
    scenario.write_text(
        f"turns:\n  - error: {{status: {status}, message: scripted}}\n    times: forever\n"
        "  - final: {text: unreachable}\n"
    )
    server = https_provider(str(scenario))
    direct = run(engine, scripted_provider(str(scenario)), ca_file, tmp_path, "direct", "off")
    through = run(engine, server, ca_file, tmp_path, "through", gateway="on")
    assert direct.reason is not None and direct.reason != "ok", direct.stderr
    assert (through.exit_code, through.reason) == (direct.exit_code, direct.reason)
    usage = through.manifest["metadata"]["usage"]
    assert usage["rate_limited_calls" if status == 429 else "failed_calls"] >= 1
