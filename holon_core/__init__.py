"""holon-core: run AI coding engines headlessly behind the RFC-0002 agent contract."""

from __future__ import annotations

from holon_core._version import __version__
from holon_core.adapter import (
    Capabilities,
    EngineAdapter,
    EngineReport,
    EventParser,
    JsonLinesParser,
    LaunchPlan,
    RunContext,
    StagedSkill,
    base_env,
)
from holon_core.hookspecs import hookimpl

__all__ = [
    "Capabilities",
    "EngineAdapter",
    "EngineReport",
    "EventParser",
    "JsonLinesParser",
    "LaunchPlan",
    "RunContext",
    "StagedSkill",
    "__version__",
    "base_env",
    "hookimpl",
]
