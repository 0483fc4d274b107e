"""What a skill gets at run time through the real codex CLI: the HOLON_*_DIR variables, the
variables it and the spec ask for (redacted from every file holon writes), and a skill in
the workspace's own ``.agents/skills`` validated and recorded (the one rule for all engines).
"""

from __future__ import annotations

import pytest
from holon_conformance.provider import ScriptedProvider, parse_scenario

from holon_core.testing import run_agent
from holon_core.testing.skills_runtime import (
    RUNTIME_SCENARIO,
    check_runtime,
    runtime_env,
    runtime_task,
)

pytestmark = pytest.mark.engine("codex")


def test_skill_runtime_env_and_workspace_skill(codex_binary, tmp_path):
    server = ScriptedProvider(parse_scenario(RUNTIME_SCENARIO, "runtime")).start()
    try:
        task = runtime_task(tmp_path / "task", ".agents/skills")
        env = {**server.engine_env("codex"), "HOLON_MODEL": "gpt-5.5", **runtime_env()}
        result = run_agent(task, "codex", env=env, timeout=90)
        model_saw = server.turn_requests("codex")[-1].text()
    finally:
        server.stop()
    assert result.manifest is not None, result.stderr
    assert (result.exit_code, result.manifest["outcome"]) == (0, "success"), result.stderr
    check_runtime(task, result.manifest, model_saw, ".agents/skills")
