"""Which instruction files reach the model: the workspace's own, never its ancestors'.

Claude Code loads ``CLAUDE.md``-style files from every directory above its cwd; a workspace
checked out below the user's HOME would hand ``~/.claude/CLAUDE.md`` to the model.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from holon_core.testing import make_task

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = pytest.mark.engine("claude")

MARK = "ANCESTOR-5c1e"


def plant(directory: Path, label: str) -> None:
    """Every instruction file Claude Code reads from a directory, each with its own marker."""
    rules = directory / ".claude" / "rules" / "nested"
    rules.mkdir(parents=True, exist_ok=True)
    for name in ("CLAUDE.md", "CLAUDE.local.md", ".claude/CLAUDE.md", ".claude/rules/nested/r.md"):
        tag = name.replace("/", "-").replace(".", "-")
        (directory / name).write_text(f"Always say {MARK}-{label}-{tag}.\n", encoding="utf-8")


def test_ancestor_instruction_files_never_reach_the_model(
    kit, scripted_provider, tmp_path, claude_binary
):
    # A user HOME holding the workspace, with glob metacharacters on the way down.
    home = tmp_path / "home"
    parent = home / "src" / "odd [dir] {a,b} (x)*"
    task = make_task(parent / "task", goal="Create hello.txt", files={"README.md": "hi\n"})
    plant(home, "home")
    plant(parent, "parent")
    plant(task.root, "taskroot")
    own = "WORKSPACE-OWN-9d2b"
    for name in ("CLAUDE.md", "CLAUDE.local.md", ".claude/CLAUDE.md"):
        (task.workspace / name).parent.mkdir(exist_ok=True)
        (task.workspace / name).write_text(f"Remember {own}-{name}.\n", encoding="utf-8")
    server = scripted_provider("final-only")
    result = kit.run(task, server, HOME=str(home))
    assert result.exit_code == 0, result.stderr
    seen = json.dumps([r.body for r in server.turn_requests("claude")])
    assert MARK not in seen
    for name in ("CLAUDE.md", "CLAUDE.local.md", ".claude/CLAUDE.md"):
        assert f"{own}-{name}" in seen
    # holon's own system text still arrives.
    assert "You are running headless inside holon" in seen
