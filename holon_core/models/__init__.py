"""Contract models (RFC-0002 / RFC-0003). They import nothing of the runtime.

Submodules load on first use (PEP 562): the agent needs the spec model before it launches the
engine but the manifest model only afterwards, so its build cost overlaps the engine's run.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from holon_core.models.manifest import (
        CostInfo,
        EngineInfo,
        Manifest,
        ManifestMetadata,
        SkillRecord,
        Usage,
    )
    from holon_core.models.spec import Artifact, Constraints, Goal, Spec

_WHERE = {
    "Artifact": "spec",
    "Constraints": "spec",
    "Goal": "spec",
    "Spec": "spec",
    "CostInfo": "manifest",
    "EngineInfo": "manifest",
    "Manifest": "manifest",
    "ManifestMetadata": "manifest",
    "SkillRecord": "manifest",
    "Usage": "manifest",
}

__all__ = [
    "Artifact",
    "Constraints",
    "CostInfo",
    "EngineInfo",
    "Goal",
    "Manifest",
    "ManifestMetadata",
    "SkillRecord",
    "Spec",
    "Usage",
]


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'holon_core.models' has no attribute {name!r}")
    return getattr(importlib.import_module(f"holon_core.models.{_WHERE[name]}"), name)
