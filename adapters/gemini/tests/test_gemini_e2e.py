"""End to end: ``holon-agent --engine gemini`` with the real pinned Gemini CLI against the
scripted model server. Each test is one real run (about 1.5 s; the retry test about 6 s).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psutil
from gemini_kit import (
    MODEL,
    finish,
    planted_home,
    run_env,
    run_gemini,
    start_gemini,
    write_skill,
)
from holon_conformance.direct import direct_launch
from holon_conformance.provider import ScriptedProvider

from holon_core.testing import Task, processes_under
from holon_core.testing.task import GIT_ENV

Provider = Callable[[Any], ScriptedProvider]


def tool_names(body: dict[str, Any]) -> set[str]:
    return {
        decl["name"]
        for group in body.get("tools", [])
        for decl in group.get("functionDeclarations", [])
    }


def system_text(body: dict[str, Any]) -> str:
    parts = (body.get("systemInstruction") or {}).get("parts", [])
    return "\n".join(str(p.get("text", "")) for p in parts)


def test_write_and_run_succeeds_with_an_applicable_patch(
    task: Task, provider: Provider, tmp_path: Path
) -> None:
    server = provider("write-and-run")
    result = run_gemini(task, server)
    assert result.exit_code == 0, result.stderr
    manifest = result.manifest
    assert manifest is not None
    meta = manifest["metadata"]
    assert manifest["outcome"] == "success" and meta["reason"] == "ok"
    assert meta["engine"]["model"] == MODEL and meta["engine"]["version"] == "0.61.0"
    assert meta["session_id"] and len(meta["session_id"]) == 36
    assert meta["turns"] == 3
    assert meta["usage"]["input_tokens"] > 0 and meta["usage"]["output_tokens"] > 0
    assert meta["gemini"]["models"] == [MODEL]
    # An explicit -m: every request is a model turn on our model, no routing call.
    assert all(r.kind == "turn" and f"/models/{MODEL}:" in r.path for r in server.requests)
    assert len(server.turn_requests("gemini")) == 3
    # The patch applies to a pristine copy of the baseline and recreates the change.
    copy = tmp_path / "copy"
    env = {**os.environ, **GIT_ENV}
    subprocess.run(["git", "clone", "-q", str(task.workspace), str(copy)], check=True, env=env)
    patch = task.output / "diff.patch"
    subprocess.run(["git", "apply", str(patch)], cwd=copy, check=True, env=env)
    assert (copy / "hello.txt").read_text() == "hello from holon\n"
    assert "GEMINI.md" not in patch.read_text() and ".gemini" not in patch.read_text()
    results = [e for e in result.events if e["type"] == "tool_result"]
    assert [e["status"] for e in results] == ["ok", "ok", "ok"]
    # The `cat` printed output, so its exit code came from the session log afterwards.
    assert results[-1]["data"] == {"exit_code": 0, "amended": True, "source": "session_log"}


def test_system_text_reaches_the_model_only_through_the_run_home(
    task: Task, provider: Provider
) -> None:
    prompts = task.input / "prompts"
    prompts.mkdir()
    (prompts / "system.md").write_text("Marker SYS-7f3a: keep answers short.\n", "utf-8")
    server = provider("final-only")
    result = run_gemini(task, server)
    assert result.exit_code == 0, result.stderr
    first = server.turn_requests("gemini")[0]
    assert "SYS-7f3a" in system_text(first.body)
    assert not (task.workspace / "GEMINI.md").exists()
    assert not (task.workspace / ".gemini").exists()
    assert result.manifest is not None and result.manifest["metadata"]["changed"] is False


def test_401_is_auth_failed_without_retries(task: Task, provider: Provider) -> None:
    server = provider("auth-401")
    result = run_gemini(task, server, HOLON_GEMINI_MAX_ATTEMPTS="3")
    assert result.exit_code == 1
    assert result.manifest is not None and result.reason == "auth_failed"
    assert "HTTP 401" in (result.manifest["error"] or "")
    assert result.manifest["metadata"]["gemini"]["exit_code"] == 145
    assert len(server.turn_requests("gemini")) == 1


def test_500_is_engine_error_after_the_bounded_attempts(task: Task, provider: Provider) -> None:
    server = provider("server-500")
    result = run_gemini(task, server, HOLON_GEMINI_MAX_ATTEMPTS="2")
    assert result.exit_code == 1
    assert result.reason == "engine_error"
    assert result.manifest is not None
    assert result.manifest["metadata"]["gemini"]["exit_code"] == 244
    assert result.manifest["metadata"]["gemini"]["http_status"] == 500
    assert len(server.turn_requests("gemini")) == 2


def test_one_500_is_retried_within_the_attempts(task: Task, provider: Provider) -> None:
    server = provider("flaky-500")
    result = run_gemini(task, server, HOLON_GEMINI_MAX_ATTEMPTS="2")
    assert result.exit_code == 0, result.stderr
    served = [r.served for r in server.turn_requests("gemini")]
    assert served[0].startswith("error 500") and len(served) == 4
    assert (task.workspace / "hello.txt").read_text() == "hello from holon\n"


def test_a_dropped_stream_is_engine_error(task: Task, provider: Provider) -> None:
    server = provider("drop")
    result = run_gemini(task, server)
    assert result.exit_code == 1 and result.reason == "engine_error"
    assert result.manifest is not None and "terminated" in (result.manifest["error"] or "")


def test_429_is_rate_limited(task: Task, provider: Provider) -> None:
    server = provider(
        {"turns": [{"error": {"status": 429, "message": "quota"}, "times": "forever"}]}
    )
    result = run_gemini(task, server)
    assert result.exit_code == 1 and result.reason == "rate_limited"


def test_a_stalled_model_is_stopped(task: Task, provider: Provider) -> None:
    server = provider("stall")
    result = run_gemini(task, server, HOLON_SILENCE_TIMEOUT="3")
    assert result.exit_code == 1 and result.reason == "stalled"


def test_a_failing_tool_call_is_tool_failed(task: Task, provider: Provider) -> None:
    call = {"name": "write_file", "args": {"file_path": "/outside/x.txt", "content": "x"}}
    server = provider({"turns": [{"tool": {"gemini": call}}, {"final": {"text": "Wrote it."}}]})
    result = run_gemini(task, server)
    assert result.exit_code == 1 and result.reason == "tool_failed"
    results = [e for e in result.events if e["type"] == "tool_result"]
    assert [e["status"] for e in results] == ["error"]


def test_max_steps_stops_the_engine(task: Task, provider: Provider) -> None:
    (task.input / "spec.yaml").write_text(
        "version: v1\nkind: Holon\ngoal: loop\nconstraints: {max_steps: 2}\n", "utf-8"
    )
    server = provider("max-turns")
    result = run_gemini(task, server)
    assert result.exit_code == 1 and result.reason == "max_steps"
    assert len(server.turn_requests("gemini")) == 2


def test_sigterm_mid_tool_cancels_and_leaves_no_process(
    task: Task, provider: Provider, tmp_path: Path
) -> None:
    server = provider("long-tool")
    proc = start_gemini(task, run_env(server))
    deadline = time.monotonic() + 30
    sleeper = None
    while sleeper is None and time.monotonic() < deadline:
        sleeper = next(
            (p for p in processes_under(tmp_path) if p.info.get("pid") and _is_sleep(p)), None
        )
        time.sleep(0.1)
    assert sleeper is not None, "the engine never started the long tool"
    proc.send_signal(signal.SIGTERM)
    result = finish(task, proc)
    assert result.exit_code == 1 and result.reason == "cancelled"
    assert not psutil.pid_exists(sleeper.pid) or sleeper.status() == psutil.STATUS_ZOMBIE


def _is_sleep(proc: psutil.Process) -> bool:
    try:
        return proc.cmdline()[:2] == ["sleep", "60"]
    except psutil.Error:
        return False


def test_skill_is_staged_listed_activated_and_recorded(
    task: Task, provider: Provider, tmp_path: Path
) -> None:
    skill = write_skill(
        tmp_path / "skills", "probe-skill", "Marker DESC-91c2 for tests.", "Marker BODY-55e1."
    )
    server = provider("use-skill")
    result = run_gemini(task, server, args=("--skill", str(skill)), HOLON_KEEP_RUN_DIR="1")
    assert result.exit_code == 0, result.stderr
    staged = list(task.state.glob("*/home/.gemini/skills/probe-skill/SKILL.md"))
    assert len(staged) == 1
    first, second = server.turn_requests("gemini")[:2]
    listing = system_text(first.body)
    assert "<name>probe-skill</name>" in listing and "DESC-91c2" in listing
    assert str(staged[0].parent) in listing
    assert "BODY-55e1" not in first.text() and "BODY-55e1" in second.text()
    calls = [e for e in result.events if e["type"] == "tool_call"]
    assert [c["tool"] for c in calls] == ["activate_skill"]
    assert result.manifest is not None
    [record] = result.manifest["metadata"]["skills"]
    assert record["name"] == "probe-skill" and record["staging"] == "native"
    assert record["seen_by_engine"] is True
    assert not (task.workspace / ".gemini").exists()


def test_planted_user_home_does_not_affect_the_run(
    task: Task, provider: Provider, tmp_path: Path, gemini_binary: Path
) -> None:
    home = planted_home(tmp_path / "user-home", "PLANT-4d1e")
    # Control: the bare CLI with that HOME does read the plant.
    control = provider("final-only")
    launch = direct_launch("gemini", gemini_binary, "hi", tmp_path / "unused", control)
    env = {**launch.env, "HOME": str(home)}
    del env["GEMINI_CLI_HOME"]
    workspace = tmp_path / "control-ws"
    workspace.mkdir()
    subprocess.run(
        launch.argv,
        env=env,
        cwd=workspace,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=60,
        check=True,
    )
    body = control.turn_requests("gemini")[0]
    assert "PLANT-4d1e-instructions" in body.text() and "PLANT-4d1e-skill" in body.text()
    assert "write_file" not in tool_names(body.body)
    # holon with the same HOME: none of it arrives, and write_file is offered and works.
    server = provider("write-and-run")
    result = run_gemini(task, server, HOME=str(home))
    assert result.exit_code == 0, result.stderr
    for request in server.requests:
        assert "PLANT-4d1e" not in request.text()
    assert "write_file" in tool_names(server.turn_requests("gemini")[0].body)
    assert (task.workspace / "hello.txt").is_file()
    assert json.loads((home / ".gemini" / "settings.json").read_text())["tools"]


def test_google_api_key_alone_is_enough(task: Task, provider: Provider) -> None:
    server = provider("final-only")
    env = run_env(server)
    key = env.pop("GEMINI_API_KEY")
    env["GOOGLE_API_KEY"] = key
    from holon_core.testing import run_agent

    result = run_agent(task, "gemini", env=env, timeout=60)
    assert result.exit_code == 0, result.stderr
    assert server.turn_requests("gemini")[0].headers.get("x-goog-api-key") == "[redacted]"
