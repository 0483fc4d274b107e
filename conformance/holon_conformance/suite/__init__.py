"""The RFC-0002 conformance suite: requirement registry, base test classes, report.

Adapter authors subclass the ``Base*`` classes or :class:`ConformanceSuite` in their own
repository::

    from holon_conformance.suite import ConformanceSuite

    class TestMyEngine(ConformanceSuite):
        adapter_name = "my"
"""

from __future__ import annotations

from holon_conformance.suite.base import (
    BaseArtifacts,
    BaseExitCodes,
    BaseHeadless,
    BaseInputs,
    BaseOutputs,
    BasePatch,
    BaseProbe,
    BaseProcessHygiene,
    ConformanceSuite,
)
from holon_conformance.suite.registry import Registry, Requirement, load_registry
from holon_conformance.suite.serve_checks import BaseServe

__all__ = [
    "BaseArtifacts",
    "BaseExitCodes",
    "BaseHeadless",
    "BaseInputs",
    "BaseOutputs",
    "BasePatch",
    "BaseProbe",
    "BaseProcessHygiene",
    "BaseServe",
    "ConformanceSuite",
    "Registry",
    "Requirement",
    "load_registry",
]
