"""Native resume: a session of three turns with one persistent GEMINI_CLI_HOME, the real CLI.

Turn 2 continues turn 1 with ``--resume <uuid>`` in the same workspace. Turn 3 runs in another
workspace (serve mode's per-turn worktrees), where ``--resume`` finds no session of that
project: the chat log is imported with ``--session-file`` (a new session id, same
conversation). Each turn's first model request must hold the earlier turns.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from gemini_kit import run_env
from holon_conformance.sessions import EngineSession

from holon_core.testing import make_task

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = pytest.mark.engine("gemini")


def test_three_turns_continue_one_session(provider, tmp_path: Path):
    server = provider("final-only")
    first = make_task(tmp_path / "first", files={"README.md": "hi\n"}).workspace
    other = make_task(tmp_path / "other", files={"README.md": "hi\n"}).workspace
    session = EngineSession("gemini", server, tmp_path / "session", run_env(server))

    one = session.turn("Say hello. MARK-ONE", workspace=first)
    assert one.result.exit_code == 0, one.result.manifest
    assert one.session_id and _marks(one.first_prompt()) == {"MARK-ONE"}

    two = session.turn("Now say bye. MARK-TWO", workspace=first, resume=one.session_id)
    assert two.result.exit_code == 0, two.result.manifest
    assert two.session_id == one.session_id  # --resume continues the same session
    assert {"MARK-ONE", "MARK-TWO"} <= _marks(two.first_prompt())

    three = session.turn("Last one. MARK-THREE", workspace=other, resume=two.session_id)
    assert three.result.exit_code == 0, three.result.manifest
    assert three.session_id not in (None, one.session_id)  # imported under a new id
    assert {"MARK-ONE", "MARK-TWO", "MARK-THREE"} <= _marks(three.first_prompt())


def _marks(text: str) -> set[str]:
    return {word for word in ("MARK-ONE", "MARK-TWO", "MARK-THREE") if word in text}
