"""Two layers through the real Claude Code (scripted model server): a workspace-layer skill
(``.holon/skills``) and a builtin one the spec names both land in Claude Code's own skill
folder, the engine lists them in its init event and offers them to the model, and it loads
the workspace one when the model asks for it."""

from __future__ import annotations

from pathlib import Path

import pytest
from holon_conformance.provider import parse_scenario

from holon_core.models.manifest import Manifest
from holon_core.testing import make_task, run_agent

pytestmark = pytest.mark.engine("claude")

SCENARIO = [
    {"say": "I will use ws-lint.", "use_skill": {"name": "ws-lint"}},
    {"final": {"text": "Used ws-lint."}},
]
WS_SKILL = "---\nname: ws-lint\ndescription: Lint WS-LINT-DESC\nversion: 1.2.0\n---\nSteps.\n"


def test_workspace_and_builtin_skills_reach_claude_natively(
    engine_binary, scripted_provider, tmp_path: Path, assert_valid_manifest
) -> None:
    engine_binary("claude")  # fails, never skips, when the engine is missing
    task = make_task(
        tmp_path / "task",
        spec_extra={"metadata": {"name": "t", "skills": ["holon-report"]}},
        files={"README.md": "hi\n", ".holon/skills/ws-lint/SKILL.md": WS_SKILL},
    )
    server = scripted_provider(parse_scenario(SCENARIO, "ws-lint"))
    env = {**server.engine_env("claude"), "HOLON_MODEL": "fake-model-1"}
    result = run_agent(task, "claude", env=env, timeout=90)
    manifest = assert_valid_manifest(result.manifest)
    assert (result.exit_code, manifest["outcome"]) == (0, "success"), result.stderr

    records = Manifest.model_validate(manifest).metadata.skills
    rows = [(r.name, r.source, r.version, r.staging, r.seen_by_engine) for r in records]
    assert rows == [
        ("holon-report", "builtin", None, "native", True),
        ("ws-lint", "workspace", "1.2.0", "native", True),
    ]
    assert all(r.sha256 and r.origin for r in records)
    claude = manifest["metadata"]["claude"]
    assert claude["skills_used"] == ["ws-lint"]
    # The engine offered both to the model from its own listing (no prompt fallback: the
    # builtin's body is not in the prompt), and loaded ws-lint from its run-local skill folder.
    requests = [r.text() for r in server.turn_requests("claude")]
    assert "WS-LINT-DESC" in requests[0] and "Write the run report (summary.md)" in requests[0]
    assert "# Writing the holon run report" not in requests[0]
    native = Path(claude["config_dir"]) / "skills" / "ws-lint"
    assert f"Base directory for this skill: {native}" in requests[-1]
