"""The probe's ``env`` check: what a run's preflight would refuse about variables.

Same rules as the run (:mod:`holon_core.env_rules`), read from the raw spec (the probe stays
free of pydantic): ``context.env`` without credentials or names holon and the adapter own,
``context.pass_env`` names valid, and every variable the spec or a skill requires present.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from holon_core.checks import Check
from holon_core.env_rules import PassEnv, context_env_problems, pass_env_problems
from holon_core.errors import HolonError

if TYPE_CHECKING:
    from holon_core.adapter import EngineAdapter
    from holon_core.agent.paths import AgentPaths
    from holon_core.skills import ResolvedSkill


def env_check(
    spec: Mapping[str, Any],
    engine: EngineAdapter | None,
    env: Mapping[str, str],
    paths: AgentPaths,
    flags: Sequence[Path] = (),
) -> tuple[Check, tuple[str, ...]]:
    """One check, and the variables a run would pass (their values are redacted like the
    adapter's credentials in all the probe prints). Skills that cannot be loaded are left to
    the skills check."""
    context = spec.get("context")
    context = context if isinstance(context, dict) else {}
    raw_env = context.get("env")
    raw_pass = context.get("pass_env")
    settings = {str(k): v for k, v in raw_env.items()} if isinstance(raw_env, dict) else {}
    names = [str(n) for n in raw_pass] if isinstance(raw_pass, list) else []
    owned = (*engine.credential_env, *engine.passthrough_env) if engine is not None else ()
    problems = context_env_problems(settings, owned) + pass_env_problems(names)
    if raw_env is not None and not isinstance(raw_env, dict):
        problems.append("context.env must be a mapping of NAME: value settings")
    if raw_pass is not None and not isinstance(raw_pass, list):
        problems.append("context.pass_env must be a list of names, e.g. pass_env: [GITHUB_TOKEN]")
    skills = _skills(spec, engine, env, paths, flags)
    needed = PassEnv.collect(names, [(s.name, s.requires_env, s.source) for s in skills])
    problems += needed.problems(env)
    if problems:
        hint = needed.hint(env)
        failed = Check("env", False, "; ".join(problems), hint, reason="preflight_failed")
        return failed, needed.names
    passed = ", ".join(needed.names) or "none"
    return Check("env", True, f"variables passed to the engine: {passed}"), needed.names


def _skills(
    spec: Mapping[str, Any],
    engine: EngineAdapter | None,
    env: Mapping[str, str],
    paths: AgentPaths,
    flags: Sequence[Path],
) -> list[ResolvedSkill]:
    """The skills a run would use (resolved layers and ``--skill``, plus the engine's
    workspace folders)."""
    import tempfile

    from holon_core.agent.native_skills import find_native_skills
    from holon_core.skill_layers import resolve

    meta = spec.get("metadata")
    refs = meta.get("skills") if isinstance(meta, dict) else None
    refs = [str(r) for r in refs] if isinstance(refs, list) else []
    workspace: Path = paths.workspace
    try:  # a pinned archive unpacks into scratch, gone when the names are read
        with tempfile.TemporaryDirectory(prefix="holon-probe-") as scratch:
            found = resolve(
                refs, flags, paths.input, workspace=workspace, env=env, scratch=Path(scratch)
            )
            skills = found.skills
    except (HolonError, OSError):
        return []
    if engine is None:
        return skills
    try:
        native = find_native_skills(workspace, engine.workspace_skill_dirs, skills)
    except (HolonError, OSError):
        native = []
    return [*skills, *(skill for _, skill in native)]
