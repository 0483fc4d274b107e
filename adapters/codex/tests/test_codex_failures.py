"""Every way a Codex run fails ends with the right reason code, exit 1 and no process left.

The ``task`` fixture carries the leak check (a child subreaper sees Codex's tool processes,
which live in their own PTY sessions and survive the engine's SIGTERM).
"""

from __future__ import annotations

import os
import signal
import socket
import time

import psutil
from codex_kit import ManifestCheck, Provider, finish, run_codex, run_env, start_codex

from holon_core.testing import Task


def test_401_ends_as_auth_failed_after_one_request(
    task: Task, provider: Provider, valid_manifest: ManifestCheck
) -> None:
    server = provider("auth-401")
    result = run_codex(task, server)

    manifest = valid_manifest(result)
    assert result.exit_code == 1
    assert manifest["outcome"] == "failure"
    assert manifest["metadata"]["reason"] == "auth_failed"
    assert "OPENAI_API_KEY" in manifest["error"]
    # The parser stops Codex at its first 401 retry notice instead of letting it retry.
    assert len(server.turn_requests()) <= 2


def test_500_ends_as_engine_error_with_capped_retries(
    task: Task, provider: Provider, valid_manifest: ManifestCheck
) -> None:
    server = provider("server-500")
    result = run_codex(task, server)

    manifest = valid_manifest(result)
    assert result.exit_code == 1
    assert manifest["metadata"]["reason"] == "engine_error"
    assert "Codex reported an error" in manifest["error"]
    # request_max_retries=1 x stream_max_retries=1: 4 requests, not Codex's default 30.
    assert len(server.turn_requests()) == 4


def test_stalled_model_ends_as_stalled(
    task: Task, provider: Provider, valid_manifest: ManifestCheck
) -> None:
    server = provider("stall")
    result = run_codex(task, server, HOLON_SILENCE_TIMEOUT="2")

    manifest = valid_manifest(result)
    assert result.exit_code == 1
    assert manifest["metadata"]["reason"] == "stalled"
    assert manifest["metadata"]["process"]["ended_by"] == "stalled"


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_unreachable_endpoint_is_a_clear_failure_not_a_hang(
    task: Task, valid_manifest: ManifestCheck
) -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    result = run_codex(task, None, OPENAI_BASE_URL=url, OPENAI_API_KEY="sk-test-unreachable")

    manifest = valid_manifest(result)
    assert result.exit_code == 1
    assert manifest["metadata"]["reason"] == "engine_error"
    assert url in manifest["error"]
    assert "cannot reach" in manifest["error"]


def _tool_process(agent_pid: int, deadline: float) -> psutil.Process:
    """Codex's ``sleep 60`` tool process, once it runs."""
    while time.monotonic() < deadline:
        try:
            for proc in psutil.Process(agent_pid).children(recursive=True):
                if proc.name() == "sleep":
                    return proc
        except psutil.Error:
            pass
        time.sleep(0.05)
    raise AssertionError("the sleep tool never started")


def test_sigterm_mid_tool_is_cancelled_and_kills_the_tool(
    task: Task, provider: Provider, valid_manifest: ManifestCheck
) -> None:
    server = provider("long-tool")
    proc = start_codex(task, run_env(server))
    tool = _tool_process(proc.pid, time.monotonic() + 30)
    # Codex runs its tools in their own session (a PTY): a process-group kill misses them.
    assert _own_session(tool)
    proc.send_signal(signal.SIGTERM)
    result = finish(task, proc)

    manifest = valid_manifest(result)
    assert result.exit_code == 1
    assert manifest["metadata"]["reason"] == "cancelled"
    # holon-agent (the subreaper) killed the tool before it exited.
    assert not _alive(tool)


def _own_session(proc: psutil.Process) -> bool:
    return os.getsid(proc.pid) != os.getsid(0)


def _alive(proc: psutil.Process) -> bool:
    try:
        return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def test_max_steps_stops_an_endless_tool_loop(
    task: Task, provider: Provider, valid_manifest: ManifestCheck
) -> None:
    server = provider("max-turns")
    spec = task.spec.read_text() + "constraints:\n  max_steps: 2\n"
    task.spec.write_text(spec)
    result = run_codex(task, server)

    manifest = valid_manifest(result)
    assert result.exit_code == 1
    assert manifest["metadata"]["reason"] == "max_steps"
    assert "max_steps=2" in manifest["error"]


def test_max_steps_means_model_turns(
    task: Task, provider: Provider, valid_manifest: ManifestCheck
) -> None:
    # write-and-run needs three model turns (write, run, answer) but only two tool calls.
    server = provider("write-and-run")
    task.spec.write_text(task.spec.read_text() + "constraints:\n  max_steps: 2\n")
    result = run_codex(task, server)

    manifest = valid_manifest(result)
    assert result.exit_code == 1, result.stderr
    assert manifest["metadata"]["reason"] == "max_steps"
    assert "max_steps=2 model turns" in manifest["error"]
