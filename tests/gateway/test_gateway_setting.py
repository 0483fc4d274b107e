"""``HOLON_GATEWAY``: on by default for a one-shot run, ``off`` gives the run as it was before
the gateway, anything else is refused with a record naming the variable."""

from __future__ import annotations

from holon_core.testing import make_task, run_agent

from .kit import REAL_KEY


def claude_env(server, **extra):
    env = server.engine_env("claude") | {"ANTHROPIC_API_KEY": REAL_KEY}
    return env | {"HOLON_MODEL": "claude-sonnet-4-5", "HOLON_CLAUDE_MAX_RETRIES": "1"} | extra


def task_in(tmp_path):
    return make_task(tmp_path / "task", goal="Create hello.txt", files={"README.md": "hi\n"})


def test_on_by_default(engine_binary, scripted_provider, tmp_path):
    engine_binary("claude")
    server = scripted_provider("final-only", api_key=REAL_KEY)
    result = run_agent(task_in(tmp_path), "claude", env=claude_env(server), timeout=120)
    assert result.manifest is not None and result.manifest["outcome"] == "success"
    assert result.manifest["metadata"]["gateway"]["state"] == "on"
    assert (result.output_dir / "evidence" / "model-calls.ndjson").exists()


def test_off_is_the_run_without_the_gateway(engine_binary, scripted_provider, tmp_path):
    engine_binary("claude")
    server = scripted_provider("final-only", api_key=REAL_KEY)
    env = claude_env(server, HOLON_GATEWAY="off")
    result = run_agent(task_in(tmp_path), "claude", env=env, timeout=120)
    assert result.manifest is not None and result.manifest["outcome"] == "success"
    meta = result.manifest["metadata"]
    assert "gateway" not in meta and "source" not in meta["usage"]
    assert meta["cost"]["source"] == "reported"
    assert not (result.output_dir / "evidence" / "model-calls.ndjson").exists()
    # The engine itself carried the real key to the server (it answers 401 to anything else).
    assert [r.served for r in server.requests if r.kind == "turn"] == ["reply"]


def test_a_value_that_is_neither_on_nor_off_is_refused(scripted_provider, tmp_path):
    server = scripted_provider("final-only")
    env = claude_env(server, HOLON_GATEWAY="maybe")
    result = run_agent(task_in(tmp_path), "claude", env=env, timeout=120)
    assert result.exit_code == 1
    assert result.manifest is not None and result.manifest["metadata"]["reason"] == "invalid_input"
    assert "HOLON_GATEWAY='maybe'" in result.manifest["error"]
    assert "HOLON_GATEWAY=on or off" in result.manifest["error"]
    assert server.requests == []
