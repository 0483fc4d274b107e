"""The real pinned CLIs, invoked directly (no holon adapter), against the scripted provider.

Each engine must fail, never skip, when it is not installed (``engine_binary`` does that).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from holon_conformance.direct import ENGINES, native_skill_dir, run_direct

pytestmark = pytest.mark.usefixtures("no_leftover_processes")

PROMPT = "Create hello.txt containing a greeting, then show it. [holon-prompt-7f3a]"
#: How each CLI identifies itself, and where its own system prompt goes.
USER_AGENT = {"claude": "claude-cli/", "codex": "codex_exec/", "gemini": "GeminiCLI"}
SYSTEM_MARKER = {
    "claude": "You are a Claude agent",
    "codex": "<permissions instructions>",
    "gemini": "You are a non-interactive CLI agent",
}


def _system_text(engine: str, body: dict[str, Any]) -> str:
    if engine == "claude":
        return json.dumps(body.get("system"))
    if engine == "codex":
        return json.dumps([i for i in body.get("input", []) if i.get("role") == "developer"])
    return json.dumps(body.get("systemInstruction"))


@pytest.fixture
def workspace(tmp_path):
    path = tmp_path / "ws"
    path.mkdir()
    return path


@pytest.mark.parametrize("engine", ENGINES)
def test_write_and_run(engine, engine_binary, scripted_provider, engine_home, workspace):
    binary = engine_binary(engine)
    provider = scripted_provider("write-and-run")
    run = run_direct(
        engine, binary, provider, workspace=workspace, home=engine_home(engine), prompt=PROMPT
    )

    assert run.returncode == 0, run.stderr[-2000:]
    assert (workspace / "hello.txt").read_text() == "hello from holon\n"
    turns = provider.turn_requests(engine)
    assert [r.turn for r in turns] == [0, 1, 2]
    assert all(not r.warnings for r in turns)
    first = turns[0]
    assert PROMPT in first.text()
    assert SYSTEM_MARKER[engine] in _system_text(engine, first.body)
    assert USER_AGENT[engine] in first.headers["user-agent"]
    # The shell command really ran: its output went back to the model as a tool result.
    assert "hello from holon" in turns[2].text()
    assert "Created hello.txt" in run.stdout


@pytest.mark.parametrize("engine", ENGINES)
def test_auth_401_fails(engine, engine_binary, scripted_provider, engine_home, workspace):
    binary = engine_binary(engine)
    provider = scripted_provider("auth-401")
    run = run_direct(
        engine, binary, provider, workspace=workspace, home=engine_home(engine), prompt=PROMPT
    )

    assert run.returncode != 0
    served = [r.served for r in provider.turn_requests(engine)]
    assert served and set(served) == {"error 401"}
    assert not (workspace / "hello.txt").exists()


@pytest.mark.parametrize("engine", ENGINES)
def test_skill_reaches_the_model(engine, engine_binary, scripted_provider, engine_home, workspace):
    binary = engine_binary(engine)
    home = engine_home(engine)
    skill = native_skill_dir(engine, home) / "probe-skill"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: probe-skill\ndescription: Probe skill DESC-MARKER-91c2 for conformance.\n"
        "---\nBODY-MARKER-5d0e: follow these probe instructions.\n"
    )
    provider = scripted_provider("use-skill")
    run = run_direct(
        engine, binary, provider, workspace=workspace, home=home, prompt="Use the probe skill."
    )

    assert run.returncode == 0, run.stderr[-2000:]
    turns = provider.turn_requests(engine)
    assert [r.turn for r in turns] == [0, 1]
    assert "DESC-MARKER-91c2" in turns[0].text()
    assert "BODY-MARKER-5d0e" not in turns[0].text()
    assert "BODY-MARKER-5d0e" in turns[1].text()
    assert not turns[0].warnings
