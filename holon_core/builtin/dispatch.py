"""Routes the per-engine hooks to the selected adapter object's methods.

Adapters then only implement ``holon_register_engines``; a plugin that wants to change a
step for every engine implements the hook with ``tryfirst=True``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from holon_core.hooks.specs import hookimpl

if TYPE_CHECKING:
    from holon_core.engine.adapter import (
        EngineAdapter,
        EngineReport,
        EventParser,
        LaunchPlan,
        RunContext,
        StagedSkill,
    )
    from holon_core.engine.checks import Check
    from holon_core.skill.package import ResolvedSkill


@hookimpl
def holon_preflight(engine: EngineAdapter, env: Mapping[str, str]) -> list[Check]:
    return engine.preflight(env)


@hookimpl
def holon_stage_skills(run: RunContext, skills: list[ResolvedSkill]) -> list[StagedSkill] | None:
    if not skills or not run.engine.capabilities.native_skills:
        return None
    return run.engine.stage_skills(run, skills)


@hookimpl
def holon_launch(run: RunContext) -> LaunchPlan:
    return run.engine.launch(run)


@hookimpl
def holon_event_parser(run: RunContext) -> EventParser:
    return run.engine.event_parser(run)


@hookimpl
def holon_manifest_metadata(run: RunContext, report: EngineReport) -> dict[str, Any]:
    return run.engine.manifest_metadata(run, report)
