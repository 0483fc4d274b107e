"""What of the workspace's surroundings reaches a Gemini run: no ``.env`` file from any
ancestor (nor the HOME that holds the workspace), while the workspace's own ``GEMINI.md`` and
skills still work (the folder is trusted once settings and env files are loaded).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from gemini_kit import run_gemini
from holon_conformance.provider import ScriptedProvider

from holon_core.testing import make_task

Provider = Callable[[Any], ScriptedProvider]

MARK = "DOTENV-8b3f"
SHOW_ENV = {"turns": [{"run_shell": {"command": "env | sort"}}, {"final": {"text": "Done."}}]}


def plant_env_files(directory: Path, label: str) -> None:
    (directory / ".gemini").mkdir(parents=True, exist_ok=True)
    (directory / ".env").write_text(f"LEAKY_PLAIN_{label}={MARK}-plain-{label}\n", "utf-8")
    (directory / ".gemini" / ".env").write_text(
        f"LEAKY_GEMINI_{label}={MARK}-gemini-{label}\nGOOGLE_CLOUD_PROJECT={MARK}-project\n",
        "utf-8",
    )


def test_no_env_file_of_the_workspace_ancestors_or_home_is_loaded(
    provider: Provider, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    task = make_task(home / "src" / "proj", goal="Show env", files={"README.md": "hi\n"})
    for directory, label in ((home, "HOME"), (home / "src", "SRC"), (task.root, "TASK")):
        plant_env_files(directory, label)
    (task.workspace / "GEMINI.md").write_text("Project marker OWN-GEMINI-61d0.\n", "utf-8")
    skill = task.workspace / ".gemini" / "skills" / "ws-skill"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: ws-skill\ndescription: Marker OWN-SKILL-2a7c.\n---\nbody\n", "utf-8"
    )
    server = provider(SHOW_ENV)
    result = run_gemini(task, server, HOME=str(home))
    assert result.exit_code == 0, result.stderr
    first, second = server.turn_requests("gemini")[:2]
    assert "PATH=" in second.text()  # the tool output (the engine's env) reached the model
    for request in server.requests:
        assert MARK not in request.text()
    # Trusted where it matters: the workspace's own instructions and skills are read.
    assert "OWN-GEMINI-61d0" in first.text() and "OWN-SKILL-2a7c" in first.text()
