"""Serve mode continues an ACP agent's own session (``resume.py``): ``session/resume`` or
``session/load`` with the previous turn's session id, holon's transcript only when the agent
cannot. The scripted agent shows each path; the real agents' are in ``test_acp_resume_real``.
"""

from __future__ import annotations

from acp_kit import scripted_env
from acp_serve import two_turns

from holon_core.testing import Task

INPUTS = ("Remember RESUME-MARK-ONE.", "And now RESUME-MARK-TWO.")
TRANSCRIPT_HEADING = "# Conversation so far"


def test_session_load_continues_the_agents_own_session(task: Task) -> None:
    one, two = two_turns(task, "acp", scripted_env("echo-load"), INPUTS)
    assert one.response["status"] == "completed", one.response
    assert two.response["status"] == "completed", two.response
    assert two.json("turn.json")["continuation"]["mode"] == "native"
    session = one.json("turn.json")["engine_session_id"]
    assert two.acp["resume"] == {"session_id": session, "resumed": True}, two.acp
    # the agent got this turn's input alone: the earlier turn is in its session, not the prompt
    assert "RESUME-MARK-TWO" in two.text
    assert "RESUME-MARK-ONE" not in two.text and TRANSCRIPT_HEADING not in two.text
    # what session/load replayed is the earlier turn's, not this turn's answer
    assert "REPLAYED-EARLIER-MESSAGE" not in two.text


def test_failed_session_load_falls_back_to_the_transcript(task: Task) -> None:
    one, two = two_turns(task, "acp", scripted_env("echo-load-fails"), INPUTS)
    assert one.response["status"] == "completed", one.response
    assert two.response["status"] == "completed", two.response
    resume = two.acp["resume"]
    assert resume["resumed"] is False and resume["method"] == "session/load", resume
    assert "not found" in resume["message"]
    assert TRANSCRIPT_HEADING in two.text and "RESUME-MARK-ONE" in two.text
    assert "RESUME-MARK-TWO" in two.text
    assert two.json("manifest.json")["outcome"] == "success"


def test_agent_without_load_gets_the_transcript(task: Task) -> None:
    _one, two = two_turns(task, "acp", scripted_env("echo"), INPUTS)
    assert two.response["status"] == "completed", two.response
    resume = two.acp["resume"]
    assert resume["resumed"] is False and resume["method"] is None, resume
    assert TRANSCRIPT_HEADING in two.text and "RESUME-MARK-ONE" in two.text
