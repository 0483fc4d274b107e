"""holon-core: run AI coding engines headlessly behind the RFC-0002 agent contract.

This package is the public API for adapter authors: every name in ``__all__`` (listed in
docs/writing-an-adapter.md) is stable; everything else in ``holon_core`` may move. Test helpers
live in ``holon_core.testing``. Names resolve lazily (PEP 562) so ``import holon_core`` costs
what ``holon-agent --probe`` can afford: no pydantic, no pluggy, no runtime until a name is used.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

from holon_core._version import __version__

if TYPE_CHECKING:
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
    from holon_core.checks import Check
    from holon_core.engines import (
        EnginePackage,
        find_engine_binary,
        npm_package_version,
        read_engine_version,
    )
    from holon_core.errors import EngineNotInstalled
    from holon_core.events import Event, ToolOutcome, command_ok
    from holon_core.files import read_regular
    from holon_core.hookspecs import hookimpl
    from holon_core.skills import ResolvedSkill
    from holon_core.staging import copy_skills

#: Each public name and the module that defines it (imported on first use).
_PUBLIC: dict[str, str] = {
    "Capabilities": "holon_core.adapter",
    "EngineAdapter": "holon_core.adapter",
    "EngineReport": "holon_core.adapter",
    "EventParser": "holon_core.adapter",
    "JsonLinesParser": "holon_core.adapter",
    "LaunchPlan": "holon_core.adapter",
    "RunContext": "holon_core.adapter",
    "StagedSkill": "holon_core.adapter",
    "base_env": "holon_core.adapter",
    "Check": "holon_core.checks",
    "EnginePackage": "holon_core.engines",
    "find_engine_binary": "holon_core.engines",
    "npm_package_version": "holon_core.engines",
    "read_engine_version": "holon_core.engines",
    "EngineNotInstalled": "holon_core.errors",
    "Event": "holon_core.events",
    "ToolOutcome": "holon_core.events",
    "command_ok": "holon_core.events",
    "read_regular": "holon_core.files",
    "hookimpl": "holon_core.hookspecs",
    "ResolvedSkill": "holon_core.skills",
    "copy_skills": "holon_core.staging",
}

__all__ = [
    "Capabilities",
    "Check",
    "EngineAdapter",
    "EngineNotInstalled",
    "EnginePackage",
    "EngineReport",
    "Event",
    "EventParser",
    "JsonLinesParser",
    "LaunchPlan",
    "ResolvedSkill",
    "RunContext",
    "StagedSkill",
    "ToolOutcome",
    "__version__",
    "base_env",
    "command_ok",
    "copy_skills",
    "find_engine_binary",
    "hookimpl",
    "npm_package_version",
    "read_engine_version",
    "read_regular",
]


def __getattr__(name: str) -> object:
    """Import the module defining ``name`` on first use and cache the value here."""
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'holon_core' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
