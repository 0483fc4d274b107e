"""Which of the user's variables ``holon run`` forwards to the agent for the engine.

Beyond the adapter's own credentials: the spec's ``context.pass_env`` and every
``requires.env`` of the skills the run will use (resolved like holon-agent does, plus the
engine's own skill folders in the workspace; a skill from the workspace only within
``context.pass_env``), and only those. A skill that does not load is skipped here: the agent
refuses it and records why.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from holon_core.agent.native_skills import find_native_skills
from holon_core.engine.adapter import EngineAdapter
from holon_core.errors import HolonError
from holon_core.models.spec import Spec
from holon_core.skill.env_rules import PassEnv
from holon_core.skill.layers import resolve


def forwarded_names(
    adapter: EngineAdapter,
    spec: Spec,
    env: Mapping[str, str],
    *,
    skills: Sequence[Path],
    input_dir: Path,
    workspace: Path,
) -> tuple[str, ...]:
    """Names from ``context.pass_env`` and the skills' ``requires.env``, in order."""
    try:  # a pinned archive unpacks into scratch, gone when the names are read
        with tempfile.TemporaryDirectory(prefix="holon-run-") as scratch:
            where = Path(scratch)
            refs = spec.metadata.skills
            resolved = resolve(refs, skills, input_dir, workspace=workspace, env=env, scratch=where)
        found = resolved.skills
        native = find_native_skills(workspace, adapter.workspace_skill_dirs, found)
    except (HolonError, OSError):
        found, native = [], []
    every = [*found, *(skill for _, skill in native)]
    requests = [(s.name, s.requires_env, s.source) for s in every]
    needed = PassEnv.collect(spec.context.pass_env, requests)
    return needed.names
