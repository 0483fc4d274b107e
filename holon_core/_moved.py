"""Old module paths of holon_core, kept importable for one release with a DeprecationWarning.

Issue 23 moved holon_core's top-level modules into packages by job. Code outside this
repository may still say ``from holon_core.adapter import EngineAdapter``: a meta-path finder
answers each old name with the module at its new path (the same module object, so classes
and monkeypatches are shared) and warns once per name. New code imports from ``holon_core``
(adapters) or from the new path. Remove after holon-core 0.2.
"""

from __future__ import annotations

import sys
import warnings
from importlib import import_module
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from collections.abc import Sequence
    from importlib.abc import Loader

#: Old module -> the module that holds its code now.
MOVED: dict[str, str] = {
    "holon_core.files": "holon_core.untrusted.files",
    "holon_core.redact": "holon_core.untrusted.redact",
    "holon_core.yaml_safe": "holon_core.untrusted.yaml_safe",
    "holon_core.quoting": "holon_core.untrusted.quoting",
    "holon_core.skills": "holon_core.skill.package",
    "holon_core.skill_layers": "holon_core.skill.layers",
    "holon_core.skill_store": "holon_core.skill.store",
    "holon_core.skill_archive": "holon_core.skill.archive",
    "holon_core.skill_catalog": "holon_core.skill.catalog",
    "holon_core.env_rules": "holon_core.skill.env_rules",
    "holon_core.durations": "holon_core.spec.durations",
    "holon_core.spec_file": "holon_core.spec.file",
    "holon_core.spec_rules": "holon_core.spec.rules",
    "holon_core.spec_loader": "holon_core.spec.load",
    "holon_core.adapter": "holon_core.engine.adapter",
    "holon_core.capability": "holon_core.engine.capability",
    "holon_core.checks": "holon_core.engine.checks",
    "holon_core.engines": "holon_core.engine.binaries",
    "holon_core.events": "holon_core.engine.events",
    "holon_core.staging": "holon_core.engine.staging",
    "holon_core.supervisor": "holon_core.process.supervisor",
    "holon_core.process_tree": "holon_core.process.tree",
    "holon_core._pipes": "holon_core.process.pipes",
    "holon_core._watchdog": "holon_core.process.watchdog",
    "holon_core.outcome": "holon_core.record.outcome",
    "holon_core.manifest_writer": "holon_core.record.manifest_writer",
    "holon_core.engine_manifest": "holon_core.record.engine_manifest",
    "holon_core.hookspecs": "holon_core.hooks.specs",
    "holon_core.plugins": "holon_core.hooks.manager",
    "holon_core.entry_points": "holon_core.hooks.entry_points",
    "holon_core.replay_engine": "holon_core.builtin.replay_engine",
}


class _AliasLoader:
    """Loads an old name as the module at its new path, with a DeprecationWarning."""

    def __init__(self, new: str) -> None:
        self.new = new

    def create_module(self, spec: ModuleSpec) -> ModuleType:
        warnings.warn(
            f"{spec.name} moved to {self.new}: import from there, or from holon_core "
            "(the public API for adapters); the old path goes after holon-core 0.2",
            DeprecationWarning,
            stacklevel=2,  # warnings skips importlib's frames: this names the importer
        )
        return import_module(self.new)

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the module at the new path is already loaded."""


class MovedFinder:
    """A meta-path finder that knows only the old names in ``MOVED``."""

    @classmethod
    def find_spec(
        cls, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        new = MOVED.get(fullname)
        return None if new is None else ModuleSpec(fullname, cast("Loader", _AliasLoader(new)))


def install() -> None:
    """Put the finder on ``sys.meta_path`` once (first: no file exists at an old path)."""
    if MovedFinder not in sys.meta_path:
        sys.meta_path.insert(0, MovedFinder)
