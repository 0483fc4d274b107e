"""Native resume: a session of three turns with one persistent CODEX_HOME, the real pinned CLI.

Turn 2 continues turn 1 with ``codex exec resume <thread_id>`` in the same workspace, turn 3
from another workspace (serve mode's per-turn worktrees). Each turn's first model request
must hold the earlier turns.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from codex_kit import run_env
from holon_conformance.sessions import EngineSession

from holon_core.testing import make_task

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = pytest.mark.engine("codex")


def test_three_turns_continue_one_session(codex_binary, provider, tmp_path: Path):
    server = provider("final-only")
    first = make_task(tmp_path / "first", files={"README.md": "hi\n"}).workspace
    other = make_task(tmp_path / "other", files={"README.md": "hi\n"}).workspace
    session = EngineSession("codex", server, tmp_path / "session", run_env(server))

    one = session.turn("Say hello. MARK-ONE", workspace=first)
    assert one.result.exit_code == 0, one.result.manifest
    assert one.session_id and _marks(one.first_prompt()) == {"MARK-ONE"}

    two = session.turn("Now say bye. MARK-TWO", workspace=first, resume=one.session_id)
    assert two.result.exit_code == 0, two.result.manifest
    assert two.session_id == one.session_id  # the thread continues under its id
    assert {"MARK-ONE", "MARK-TWO"} <= _marks(two.first_prompt())

    three = session.turn("Last one. MARK-THREE", workspace=other, resume=two.session_id)
    assert three.result.exit_code == 0, three.result.manifest
    assert {"MARK-ONE", "MARK-TWO", "MARK-THREE"} <= _marks(three.first_prompt())
    # One rollout holds the whole thread: resume appends to it instead of starting anew.
    rollouts = list((session.home / ".codex" / "sessions").rglob("rollout-*.jsonl"))
    assert len(rollouts) == 1 and one.session_id in rollouts[0].name


def _marks(text: str) -> set[str]:
    return {word for word in ("MARK-ONE", "MARK-TWO", "MARK-THREE") if word in text}
