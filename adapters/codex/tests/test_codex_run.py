"""A successful run end to end: real holon-agent, the real pinned codex, a scripted model."""

from __future__ import annotations

import subprocess
from pathlib import Path

from codex_kit import MODEL, ManifestCheck, Provider, run_codex

from holon_core.testing import Task


def test_write_and_run_succeeds_with_applicable_diff(
    task: Task, provider: Provider, valid_manifest: ManifestCheck, tmp_path: Path
) -> None:
    server = provider("write-and-run")
    result = run_codex(task, server)

    manifest = valid_manifest(result)
    assert result.exit_code == 0, result.stderr
    assert manifest["outcome"] == "success"
    meta = manifest["metadata"]
    assert meta["reason"] == "ok"
    assert meta["engine"]["name"] == "codex"
    assert meta["engine"]["model"] == MODEL  # read from Codex's session log, not the stream
    assert meta["session_id"]
    assert meta["turns"] == 3
    assert meta["usage"]["input_tokens"] > 0
    assert meta["usage"]["output_tokens"] > 0
    assert meta["usage"]["total_tokens"] >= meta["usage"]["output_tokens"]
    assert manifest["duration"].endswith("s")
    assert meta["codex"]["duration_ms"] >= 0
    assert meta["codex"]["model_provider"] == "holon"

    # Codex really did the work in the workspace.
    assert (task.workspace / "hello.txt").read_text() == "hello from holon\n"
    types = [e["type"] for e in result.events]
    assert "tool_call" in types
    assert types.count("result") == 1

    # diff.patch applies to the baseline (a clone of the committed workspace) ...
    patch = (task.output / "diff.patch").read_text()
    assert "hello.txt" in patch
    clone = tmp_path / "baseline"
    subprocess.run(["git", "clone", "-q", str(task.workspace), str(clone)], check=True)
    subprocess.run(["git", "apply", str(task.output / "diff.patch")], cwd=clone, check=True)
    assert (clone / "hello.txt").read_text() == "hello from holon\n"
    # ... and carries nothing holon placed for Codex.
    for planted in ("AGENTS.md", ".codex", "config.toml"):
        assert planted not in patch


def test_one_transient_500_is_retried_and_the_run_succeeds(
    task: Task, provider: Provider, valid_manifest: ManifestCheck
) -> None:
    server = provider("flaky-500")
    result = run_codex(task, server)

    manifest = valid_manifest(result)
    assert result.exit_code == 0, result.stderr
    assert manifest["metadata"]["reason"] == "ok"
    assert next(r.served for r in server.turn_requests()).startswith("error 500")
    # Codex's HTTP-level retry (request_max_retries, capped at 1) is silent in the stream.
    assert (task.workspace / "hello.txt").read_text() == "hello from holon\n"


def test_system_text_goes_to_codex_home_never_the_workspace(
    task: Task, provider: Provider, valid_manifest: ManifestCheck
) -> None:
    server = provider("final-only")
    result = run_codex(task, server, HOLON_KEEP_RUN_DIR="1")

    valid_manifest(result)
    assert result.exit_code == 0, result.stderr
    assert not (task.workspace / "AGENTS.md").exists()
    assert not (task.workspace / ".codex").exists()
    rollout = valid_manifest(result)["metadata"]["codex"]["rollout"]
    codex_home = rollout.split("/sessions/")[0]
    assert codex_home.startswith(str(task.state))
    instructions = codex_home + "/AGENTS.md"
    with open(instructions, encoding="utf-8") as handle:
        system = handle.read()
    assert system.strip()
    # Codex sent the run-local instructions to the model.
    first = server.turn_requests()[0].text()
    assert system.strip().splitlines()[0] in first
    assert "Create hello.txt" in first
