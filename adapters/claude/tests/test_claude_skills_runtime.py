"""What a skill gets at run time through the real Claude Code: the HOLON_*_DIR variables,
the variables it and the spec ask for (redacted from every file holon writes), and a skill in
the workspace's own ``.claude/skills`` validated and recorded (the one rule for all engines).
"""

from __future__ import annotations

import pytest
from holon_conformance.provider import parse_scenario

from holon_core.testing import run_agent
from holon_core.testing.skills_runtime import (
    RUNTIME_SCENARIO,
    check_runtime,
    runtime_env,
    runtime_task,
)

pytestmark = pytest.mark.engine("claude")


def test_skill_runtime_env_and_workspace_skill(
    claude_binary, scripted_provider, tmp_path, assert_valid_manifest
):
    server = scripted_provider(parse_scenario(RUNTIME_SCENARIO, "runtime"))
    task = runtime_task(tmp_path / "task", ".claude/skills")
    env = {**server.engine_env("claude"), "HOLON_MODEL": "fake-model-1", **runtime_env()}
    result = run_agent(task, "claude", env=env, timeout=90)
    manifest = assert_valid_manifest(result.manifest)
    assert (result.exit_code, manifest["outcome"]) == (0, "success"), result.stderr
    check_runtime(task, manifest, server.turn_requests("claude")[-1].text(), ".claude/skills")
    # Claude Code listed the workspace skill itself (its init event names the skills).
    assert manifest["metadata"]["skills"][0]["seen_by_engine"] is True
