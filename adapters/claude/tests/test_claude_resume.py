"""Native resume: a session of three turns with one persistent home, the real pinned CLI.

Turn 2 continues turn 1 with ``--resume`` in the same workspace; turn 3 continues it from
another workspace (serve mode's per-turn worktrees), where the transcript has to be carried
to the new cwd's project dir. Each turn's first model request must hold the earlier turns.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from holon_adapter_claude.sessions import project_slug
from holon_conformance.sessions import EngineSession

from holon_core.testing import make_task

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = pytest.mark.engine("claude")


def test_three_turns_continue_one_session(claude_binary, scripted_provider, tmp_path: Path, kit):
    server = scripted_provider("final-only")
    # Deeper than 200 characters: the engine then names the project dir with a path hash.
    deep = tmp_path / ("d" * 120) / ("e" * 120)
    first = make_task(deep, files={"README.md": "hi\n"}).workspace
    other = make_task(tmp_path / "other", files={"README.md": "hi\n"}).workspace
    session = EngineSession("claude", server, tmp_path / "session", kit.env(server))

    one = session.turn("Say hello. MARK-ONE", workspace=first)
    assert one.result.exit_code == 0, one.result.stderr
    assert one.session_id and "MARK-ONE" in one.first_prompt()
    projects = session.home / ".claude" / "projects"
    assert [p.name for p in projects.iterdir()] == [project_slug(first)]

    two = session.turn("Now say bye. MARK-TWO", workspace=first, resume=one.session_id)
    assert two.result.exit_code == 0, two.result.manifest
    assert two.session_id == one.session_id  # --resume continues the same session
    assert {"MARK-ONE", "MARK-TWO"} <= _marks(two.first_prompt())

    three = session.turn("Last one. MARK-THREE", workspace=other, resume=two.session_id)
    assert three.result.exit_code == 0, three.result.manifest
    assert {"MARK-ONE", "MARK-TWO", "MARK-THREE"} <= _marks(three.first_prompt())
    assert (projects / project_slug(other) / f"{one.session_id}.jsonl").is_file()
    # Fresh turns never resume: turn 1 saw no other turn.
    assert _marks(one.first_prompt()) == {"MARK-ONE"}


def _marks(text: str) -> set[str]:
    return {word for word in ("MARK-ONE", "MARK-TWO", "MARK-THREE") if word in text}
