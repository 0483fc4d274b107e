"""Contract models (RFC-0002 / RFC-0003). They import nothing of the runtime."""

from __future__ import annotations

from holon_core.models.manifest import (
    CostInfo,
    EngineInfo,
    Manifest,
    ManifestMetadata,
    SkillRecord,
    Usage,
)
from holon_core.models.spec import Artifact, Constraints, Goal, Spec

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
