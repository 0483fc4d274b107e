"""The example adapter of docs/writing-an-adapter.md works as the page says (the docs are
tested, not just written)."""

from __future__ import annotations

from pathlib import Path

from holon_core.testing import make_task, run_agent

EXAMPLE = Path(__file__).resolve().parents[1] / "docs" / "adapters" / "example"
PLUGIN = {"HOLON_PLUGINS": "holon_adapter_echo", "PYTHONPATH": str(EXAMPLE)}


def test_the_example_adapter_runs_a_task(tmp_path, assert_valid_manifest):
    task = make_task(tmp_path, goal="Say hello to the docs")
    result = run_agent(task, engine="echo", env={**PLUGIN, "ECHO_API_KEY": "k-123456"})
    assert result.exit_code == 0, result.stderr
    manifest = assert_valid_manifest(result.manifest)
    assert manifest["metadata"]["session_id"] == "echo-1"
    assert manifest["metadata"]["usage"]["output_tokens"] == 1
    assert manifest["metadata"]["echo"] == {"model": "echo-small"}
    assert "+Say hello to the docs" in (task.output / "diff.patch").read_text()


def test_the_example_adapter_fails_fast_without_its_credential(tmp_path, assert_valid_manifest):
    task = make_task(tmp_path, goal="Say hello")
    result = run_agent(task, engine="echo", env=PLUGIN)
    assert result.exit_code == 1
    manifest = assert_valid_manifest(result.manifest)
    assert manifest["metadata"]["reason"] == "missing_credentials"
    assert "ECHO_API_KEY" in manifest["error"]
