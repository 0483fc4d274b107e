"""holon-core: run AI coding engines headlessly behind the RFC-0002 agent contract.

This package is the public API for adapter authors: every name in ``__all__`` (listed in
docs/writing-an-adapter.md) is stable; everything else in ``holon_core`` may move. Test helpers
live in ``holon_core.testing``. Names resolve lazily (PEP 562) so ``import holon_core`` costs
what ``holon-agent --probe`` can afford: no pydantic, no pluggy, no runtime until a name is used.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

from holon_core import _moved
from holon_core._version import __version__

if TYPE_CHECKING:
    from holon_core.engine.adapter import (
        Capabilities,
        EngineAdapter,
        LaunchPlan,
        RunContext,
        StagedSkill,
        base_env,
    )
    from holon_core.engine.binaries import (
        EnginePackage,
        find_engine_binary,
        npm_package_version,
        read_engine_version,
    )
    from holon_core.engine.checks import Check
    from holon_core.engine.events import Event, ToolOutcome, command_ok
    from holon_core.engine.parser import EventParser, JsonLinesParser
    from holon_core.engine.report import EngineReport
    from holon_core.engine.staging import copy_skills
    from holon_core.errors import EngineNotInstalled, HolonError, InputError
    from holon_core.hooks.specs import hookimpl
    from holon_core.skill.package import ResolvedSkill
    from holon_core.untrusted.files import read_regular

#: Each public name and the module that defines it (imported on first use).
_PUBLIC: dict[str, str] = {
    "Capabilities": "holon_core.engine.adapter",
    "EngineAdapter": "holon_core.engine.adapter",
    "EngineReport": "holon_core.engine.report",
    "EventParser": "holon_core.engine.parser",
    "JsonLinesParser": "holon_core.engine.parser",
    "LaunchPlan": "holon_core.engine.adapter",
    "RunContext": "holon_core.engine.adapter",
    "StagedSkill": "holon_core.engine.adapter",
    "base_env": "holon_core.engine.adapter",
    "Check": "holon_core.engine.checks",
    "EnginePackage": "holon_core.engine.binaries",
    "find_engine_binary": "holon_core.engine.binaries",
    "npm_package_version": "holon_core.engine.binaries",
    "read_engine_version": "holon_core.engine.binaries",
    "EngineNotInstalled": "holon_core.errors",
    "HolonError": "holon_core.errors",
    "InputError": "holon_core.errors",
    "Event": "holon_core.engine.events",
    "ToolOutcome": "holon_core.engine.events",
    "command_ok": "holon_core.engine.events",
    "read_regular": "holon_core.untrusted.files",
    "hookimpl": "holon_core.hooks.specs",
    "ResolvedSkill": "holon_core.skill.package",
    "copy_skills": "holon_core.engine.staging",
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
    "HolonError",
    "InputError",
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


_moved.install()


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
