"""Serve mode resumes each real agent's own session: the pinned CLIs in their ACP mode,
through the bridge and a real ``holon-agent serve``, against the scripted model server.

What each agent offers in ``initialize`` (agentCapabilities, measured on the pinned
versions): claude-agent-acp 0.101.0, codex-acp 2.6.0 and ``opencode acp`` offer
``sessionCapabilities.resume`` and ``loadSession``; ``gemini --acp`` (0.61.0) offers
``loadSession`` only. Turn 2's model request must carry turn 1's input from the agent's own
stored session: the prompt holds only turn 2's input (no transcript heading), turn 1's mark
is there anyway.

gemini 0.61.0's ``session/load`` starts recording the session again before it reads it: its
log is named by the minute it starts (``session-<YYYY-MM-DDTHH-MM>-<id8>.jsonl``), so a load in
the minute the session began empties the log it then reads and answers "No previous sessions
found for this project". Such a turn takes the transcript fallback; both ends are checked
(a turn 2 started in the next minute resumes: checked by hand, a test would wait a minute).
"""

from __future__ import annotations

from typing import Any

import pytest
from acp_serve import two_turns
from holon_conformance.provider import ScriptedProvider, parse_scenario
from test_acp_profiles import SETUP

from holon_core.testing import Task

INPUTS = ("Answer briefly. RESUME-MARK-ONE", "Answer briefly. RESUME-MARK-TWO")


@pytest.fixture(params=sorted(SETUP))
def profile(request: pytest.FixtureRequest, engine_binary: Any) -> str:
    engine_binary(SETUP[request.param][0])  # a missing engine fails the test, never skips
    engine_binary(request.param)
    return str(request.param)


def test_second_turn_resumes_the_agents_session(task: Task, profile: str) -> None:
    final = parse_scenario({"turns": [{"final": {"text": "Done."}}]}, "resume-final")
    with ScriptedProvider(final, workdir=str(task.workspace)) as server:
        _direct, model, settings = SETUP[profile]
        env = {**server.engine_env(profile), "HOLON_MODEL": model, **settings}
        seen: list[int] = []

        def before(_index: int) -> None:
            server.set_scenario(final)
            seen.append(len(server.turn_requests()))

        one, two = two_turns(task, profile, env, INPUTS, before)
        requests = [r.text() for r in server.turn_requests()]
    assert one.response["status"] == "completed", one.response
    assert two.response["status"] == "completed", two.response
    assert two.json("turn.json")["continuation"]["mode"] == "native"
    session = one.json("turn.json")["engine_session_id"]
    second = "\n".join(requests[seen[1] :])
    assert "RESUME-MARK-TWO" in second
    assert "RESUME-MARK-ONE" in second, "turn 2's model request lacks turn 1's input"
    resume = two.acp["resume"]
    if profile == "acp-gemini" and not resume["resumed"]:  # see the module docstring
        assert resume["method"] == "session/load", resume
        assert "No previous sessions found" in resume["message"], resume
        assert "# Conversation so far" in second, "the fallback sent no transcript"
        return
    assert resume == {"session_id": session, "resumed": True}, two.acp
    assert "# Conversation so far" not in second, "turn 2 was given holon's transcript"
