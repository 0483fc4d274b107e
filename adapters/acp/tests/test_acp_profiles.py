"""The profiles (``acp-gemini``, ``acp-opencode``): the real pinned CLIs in their ACP mode,
through the bridge and the real ``holon-agent``, against the scripted model server. The same
task and failures as the direct adapters' tests, with the same reason codes.
"""

from __future__ import annotations

import json
import signal
from collections.abc import Iterator
from typing import Any

import pytest
from acp_kit import events_of, finish, start_engine, wait_for_process
from holon_adapter_acp.direct import direct_adapter
from holon_adapter_acp.profiles import PROFILES
from holon_conformance.provider import ScriptedProvider, load_scenario

from holon_core.testing import AgentResult, Task, processes_under, run_agent

#: profile -> (its direct engine, a model name the direct adapter takes, extra settings)
SETUP: dict[str, tuple[str, str, dict[str, str]]] = {
    "acp-gemini": ("gemini", "gemini-test-model", {"HOLON_GEMINI_MAX_ATTEMPTS": "1"}),
    "acp-opencode": ("opencode", "fake-model-1", {"HOLON_OPENCODE_MAX_RETRIES": "1"}),
    "acp-claude": ("claude", "claude-sonnet-4-5", {"HOLON_CLAUDE_MAX_RETRIES": "0"}),
    "acp-codex": ("codex", "gpt-5.5", {}),
}


@pytest.fixture(params=sorted(SETUP))
def profile(request: pytest.FixtureRequest, engine_binary: Any) -> str:
    engine_binary(SETUP[request.param][0])  # a missing engine fails the test, never skips
    engine_binary(request.param)
    return str(request.param)


@pytest.fixture
def provider() -> Iterator[Any]:
    started: list[ScriptedProvider] = []

    def start(name: str) -> ScriptedProvider:
        server = ScriptedProvider(load_scenario(name)).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


def profile_env(profile: str, server: ScriptedProvider, **extra: str) -> dict[str, str]:
    _direct, model, settings = SETUP[profile]
    env = server.engine_env(profile)
    env.update({"HOLON_MODEL": model, **settings, **extra})
    return env


def run_profile(task: Task, profile: str, server: ScriptedProvider, **extra: str) -> AgentResult:
    return run_agent(task, profile, env=profile_env(profile, server, **extra), timeout=240)


def test_declarations_mirror_the_direct_adapter() -> None:
    for profile in PROFILES:
        direct = direct_adapter(profile.direct_engine)
        assert direct is not None, profile.direct_engine
        assert profile.credential_env == direct.credential_env
        assert profile.passthrough_env == direct.passthrough_env
        assert profile.model_api == direct.model_api
        assert profile.workspace_skill_dirs == direct.workspace_skill_dirs


def test_write_and_run_succeeds_with_patch_and_tool_record(task, profile, provider, valid_manifest):
    server = provider("write-and-run")
    result = run_profile(task, profile, server)
    manifest = valid_manifest(result)
    assert result.exit_code == 0, manifest.get("error")
    patch = (task.output / "diff.patch").read_text()
    assert "+++ b/hello.txt" in patch and "+hello from holon" in patch
    results = events_of(result, "tool_result")
    assert [e["status"] for e in results] == ["ok", "ok"], results
    assert manifest["metadata"]["tools"]["calls"] == 2
    if profile != "acp-codex":  # codex-acp reports `cat` as a read, without its command
        assert manifest["metadata"]["tools"]["commands"] == 1
    assert manifest["metadata"]["acp"]["stop_reason"] == "end_turn"
    assert "Created hello.txt" in "".join(e.get("text", "") for e in events_of(result, "message"))
    calls = (task.output / "evidence" / "model-calls.ndjson").read_text().splitlines()
    models = {json.loads(line)["model"] for line in calls if json.loads(line)["kind"] == "model"}
    assert models == {SETUP[profile][1]}  # the model holon was asked for, seen on the wire
    # no side call beside the task's turns (a session title: opencode acp, claude-agent-acp)
    assert [r.path for r in server.requests if r.kind == "aux"] == []


def test_401_is_auth_failed(task, profile, provider, valid_manifest):
    result = run_profile(task, profile, provider("auth-401"))
    manifest = valid_manifest(result)
    assert result.exit_code == 1
    assert manifest["metadata"]["reason"] == "auth_failed", manifest.get("error")


def test_500_is_engine_error(task, profile, provider, valid_manifest):
    result = run_profile(task, profile, provider("server-500"))
    manifest = valid_manifest(result)
    assert result.exit_code == 1
    assert manifest["metadata"]["reason"] == "engine_error", manifest.get("error")


def test_stalled_model_is_stopped(task, profile, provider, valid_manifest):
    result = run_profile(task, profile, provider("stall"), HOLON_SILENCE_TIMEOUT="5")
    manifest = valid_manifest(result)
    assert result.exit_code == 1
    assert manifest["metadata"]["reason"] == "stalled"
    assert processes_under(task.root) == []


def test_sigterm_mid_tool_leaves_nothing_running(task, profile, provider, valid_manifest):
    server = provider("long-tool")
    proc = start_engine(task, profile, profile_env(profile, server))
    try:
        if not wait_for_process(task.workspace, "sleep 60"):
            pytest.fail("the agent never started the scripted tool")
        proc.send_signal(signal.SIGTERM)
        result = finish(task, proc)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    manifest = valid_manifest(result)
    assert result.exit_code == 1
    assert manifest["metadata"]["reason"] == "cancelled"
    assert processes_under(task.root) == []


def test_generic_engine_runs_gemini_from_its_command_alone(
    task, provider, valid_manifest, engine_binary
):
    """``acp`` with only the user's settings; gemini in its default approval mode (the folder
    is untrusted) asks permission for each tool, and the policy answers at once."""
    gemini = engine_binary("gemini")
    server = provider("write-and-run")
    env = server.engine_env("gemini")  # GOOGLE_GEMINI_BASE_URL and a placeholder key
    env |= {
        "HOLON_ACP_COMMAND": f"{gemini} --acp -m gemini-test-model",
        "HOLON_ACP_LOGIN": "gemini-api-key",
        "HOLON_ACP_PASS_ENV": "GEMINI_API_KEY",
        "HOLON_ACP_MODEL_API": "google-generate-content",
        "HOLON_ACP_BASE_URL_ENV": "GOOGLE_GEMINI_BASE_URL",
    }
    result = run_agent(task, "acp", env=env, timeout=240)
    manifest = valid_manifest(result)
    assert result.exit_code == 0, manifest.get("error")
    assert "+hello from holon" in (task.output / "diff.patch").read_text()
    permissions = manifest["metadata"]["acp"]["permissions"]
    assert permissions and all(p["kind"] in ("allow_once", "allow_always") for p in permissions)
    assert manifest["metadata"]["usage"]["source"] == "gateway"
