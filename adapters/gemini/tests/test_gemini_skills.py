"""``seen_by_engine`` for Gemini: true for an activated skill, unknown (null) for one the CLI
listed in its system instruction but the model never activated. The stream shows
activations only, so "false" would claim more than holon knows.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from gemini_kit import run_gemini, write_skill
from holon_conformance.provider import ScriptedProvider

from holon_core.testing import Task

Provider = Callable[[Any], ScriptedProvider]


def test_a_listed_but_unused_skill_is_unknown_not_unseen(
    task: Task, provider: Provider, tmp_path: Path
) -> None:
    used = write_skill(tmp_path / "skills", "probe-skill", "Marker USED-3c1a.", "Body.")
    idle = write_skill(tmp_path / "skills", "idle-skill", "Marker IDLE-7e2b.", "Body.")
    server = provider("use-skill")  # activates probe-skill only
    result = run_gemini(task, server, args=("--skill", str(used), "--skill", str(idle)))
    assert result.exit_code == 0, result.stderr
    # Both were listed to the model.
    first = server.turn_requests("gemini")[0].text()
    assert "USED-3c1a" in first and "IDLE-7e2b" in first
    assert result.manifest is not None
    records = {r["name"]: r for r in result.manifest["metadata"]["skills"]}
    assert records["probe-skill"]["seen_by_engine"] is True
    # None (unknown): the manifest writer leaves the key out.
    assert records["idle-skill"].get("seen_by_engine") is None
    assert records["idle-skill"]["staging"] == "native"
