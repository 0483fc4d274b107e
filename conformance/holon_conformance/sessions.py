"""Several turns of one engine session, each through the agent's own run function.

Serve mode runs every turn through the same pipeline as one-shot ``holon-agent`` with two
more options: the engine's session id to continue and a home that outlives the run. This
drives those options directly, so an adapter's native resume is tested against the real
engine without a server in between. Each turn gets its own input and output dir; the
workspace is chosen per turn (the same one, or another as with per-turn worktrees).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from holon_core.testing import AgentResult, make_task
from holon_core.testing.agent_run import agent_env, collect

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

    from holon_conformance.provider import RecordedRequest, ScriptedProvider


@dataclass
class SessionTurn:
    """One finished turn: what the agent left, and the model requests it made."""

    result: AgentResult
    requests: list[RecordedRequest]

    @property
    def session_id(self) -> str | None:
        manifest = self.result.manifest or {}
        value = manifest.get("metadata", {}).get("session_id")
        return value if isinstance(value, str) else None

    def first_prompt(self) -> str:
        """All text of the turn's first model request (what the engine sent the model)."""
        assert self.requests, "the turn made no model request"
        return self.requests[0].text()


@dataclass
class EngineSession:
    """Turns of ``engine`` against ``provider``, sharing one persistent engine home."""

    engine: str
    provider: ScriptedProvider
    root: Path
    env: Mapping[str, str] = field(default_factory=dict)
    turns: list[SessionTurn] = field(default_factory=list)

    @property
    def home(self) -> Path:
        return self.root / "engine-home"

    def turn(self, goal: str, *, workspace: Path, resume: str | None = None) -> SessionTurn:
        """Run one turn in ``workspace``; ``resume``: the engine session id to continue."""
        from holon_core.agent.paths import AgentPaths
        from holon_core.agent.run import AgentOptions, run_agent

        task = make_task(self.root / f"turn-{len(self.turns) + 1}", goal=goal, git_repo=False)
        paths = AgentPaths(task.input, workspace, task.output, task.state)
        options = AgentOptions(engine=self.engine, resume_session=resume, home_root=self.home)
        env = agent_env({**self.provider.engine_env(self.engine), **self.env})
        before = len(self.provider.turn_requests(self.engine))
        code = run_agent(paths, options, env, threading.Event())
        requests = self.provider.turn_requests(self.engine)[before:]
        done = SessionTurn(collect(task.output, code, "", ""), requests)
        self.turns.append(done)
        return done
