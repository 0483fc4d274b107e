"""What the run's skills need from the environment, wired into the run before the engine starts.

The checks themselves are the admission's (:mod:`holon_core.agent.admission`, shared with the
probe): the engine's own workspace skill folders (:mod:`holon_core.agent.native_skills`) and the
variables the spec (``context.pass_env``) and every skill (``requires.env``) need. Here their
values join the redactor's secrets, so they are kept out of everything holon writes exactly
like the adapter's credentials, and the run's record and context learn what was found.
"""

from __future__ import annotations

from holon_core.agent.native_skills import skills_policy
from holon_core.agent.state import RunState
from holon_core.engine.adapter import EngineAdapter, RunContext
from holon_core.skill.env_rules import PassEnv
from holon_core.skill.package import ResolvedSkill
from holon_core.untrusted.redact import Redactor, secret_values


def redact_passed(run: RunState, engine: EngineAdapter, names: tuple[str, ...]) -> list[str]:
    """The adapter's credentials and ``names`` become the values kept out of what holon
    writes (also when the run is refused just after); returns those values."""
    secrets = secret_values(run.env, (*engine.credential_env, *names))
    run.redact = Redactor(secrets)
    run.evidence.redact = run.redact
    return secrets


def settle_skill_env(
    run: RunState,
    context: RunContext,
    native: list[tuple[str, ResolvedSkill]],
    needed: PassEnv,
) -> None:
    """Record the native workspace skills and the passed variables; hand them to the run."""
    engine = context.engine
    run.metadata["skills_policy"] = skills_policy(engine.workspace_skill_dirs)
    run.metadata["_native_skills"] = native
    for folder, skill in native:
        run.log.info("workspace skill", skill=skill.name, folder=folder, path=str(skill.path))
    if needed.names:
        run.log.info("pass_env", names=list(needed.names))
    for warning in needed.unredacted(run.env):
        run.log.warning("pass_env", detail=warning)
        run.metadata.setdefault("warnings", []).append(warning)
    context.pass_env = needed.names
