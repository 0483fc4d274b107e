"""What the run's skills need from the environment, settled before the engine starts.

Gathers the engine's own workspace skill folders (:mod:`holon_core.agent.native_skills`), then
the variables the spec (``context.pass_env``) and every skill (``requires.env``) need: a
missing one, a name holon sets, one a workspace skill asks for beyond ``context.pass_env``, or
a ``context.env`` name the adapter owns fails the run here with ``preflight_failed``. The
values join the redactor's secrets, so they are kept out of everything holon writes exactly
like the adapter's credentials.
"""

from __future__ import annotations

from holon_core.adapter import RunContext
from holon_core.agent.native_skills import find_native_skills, skills_policy
from holon_core.agent.preflight import PreflightFailed
from holon_core.agent.state import RunState
from holon_core.env_rules import PassEnv, context_env_problems
from holon_core.redact import Redactor, secret_values


def settle_skill_env(run: RunState, context: RunContext) -> None:
    """Validate native workspace skills and the passed variables; wire them into the run."""
    engine = context.engine
    spec = context.spec
    staged = [(s.name, s.requires_env, s.source) for s in context.skills]
    # Redact first: a run refused below writes its record with this redactor too.
    _redact(run, context, PassEnv.collect(spec.context.pass_env, staged).names)
    native = find_native_skills(context.workspace, engine.workspace_skill_dirs, context.skills)
    run.metadata["skills_policy"] = skills_policy(engine.workspace_skill_dirs)
    run.metadata["_native_skills"] = native
    for folder, skill in native:
        run.log.info("workspace skill", skill=skill.name, folder=folder, path=str(skill.path))
    owned = (*engine.credential_env, *engine.passthrough_env)
    wanted = [*staged, *((s.name, s.requires_env, s.source) for _, s in native)]
    needed = PassEnv.collect(spec.context.pass_env, wanted)
    _redact(run, context, needed.names)
    problems = context_env_problems(spec.context.env, owned) + needed.problems(run.env)
    if problems:
        hint = needed.hint(run.env)
        raise PreflightFailed("preflight failed: " + "; ".join(problems), hint=hint)
    if needed.names:
        run.log.info("pass_env", names=list(needed.names))
    for warning in needed.unredacted(run.env):
        run.log.warning("pass_env", detail=warning)
        run.metadata.setdefault("warnings", []).append(warning)
    context.pass_env = needed.names


def _redact(run: RunState, context: RunContext, names: tuple[str, ...]) -> None:
    """The adapter's credentials and ``names`` are the values kept out of what holon writes."""
    context.secrets = secret_values(run.env, (*context.engine.credential_env, *names))
    run.redact = Redactor(context.secrets)
    run.evidence.redact = run.redact
