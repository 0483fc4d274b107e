"""The typed facade over pluggy: the rest of holon calls this, never ``pm.hook`` directly.

Plugins (built-ins included) load from the entry-point group ``holon``. Operator knobs:
``HOLON_LOAD_PLUGINS`` (comma-separated allowlist; empty means built-ins only) and
``HOLON_DISABLE_PLUGINS`` (blocklist) and ``HOLON_PLUGINS`` (extra plugin modules by import
path, like ``pytest -p``: how the conformance suite loads its deliberately broken adapters).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pluggy

from holon_core.errors import EngineNotFound, PluginError
from holon_core.hooks import specs as hookspecs
from holon_core.hooks.entry_points import EntryPointRef, entry_points

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

BUILTIN_PLUGINS = {
    "dispatch": "holon_core.builtin.dispatch",
    "prompt-fallback": "holon_core.builtin.fallback_skills",
    "replay": "holon_core.builtin.replay",
}


@dataclass(slots=True)
class PluginInfo:
    name: str
    module: str
    distribution: str | None
    version: str | None
    hooks: list[str]
    engines: list[str] = field(default_factory=list)


class HolonPlugins:
    """A loaded plugin manager plus the engines plugins registered."""

    def __init__(self, pm: pluggy.PluginManager | None = None) -> None:
        self.pm = pm or pluggy.PluginManager(hookspecs.PROJECT)
        self.pm.add_hookspecs(hookspecs)
        self._engines: dict[str, EngineAdapter] = {}
        self._engine_owner: dict[str, str] = {}
        self._dists: dict[str, tuple[str | None, str | None]] = {}

    # -- loading ------------------------------------------------------------------------------
    def load(self, env: Mapping[str, str] | None = None) -> HolonPlugins:
        """Load every plugin from entry points, register their engines, check for typos."""
        env = os.environ if env is None else env
        allow = _names(env.get("HOLON_LOAD_PLUGINS"))
        block = _names(env.get("HOLON_DISABLE_PLUGINS")) or set()
        seen: set[str] = set()
        for ep in entry_points(hookspecs.PROJECT):
            if ep.name in seen or ep.name in block:
                continue
            is_builtin = ep.name in BUILTIN_PLUGINS
            if allow is not None and not is_builtin and ep.name not in allow:
                continue
            seen.add(ep.name)
            self._register_entry_point(ep)
        for name, module in BUILTIN_PLUGINS.items():  # running from a tree without metadata
            if name not in seen and name not in block:
                self.register(importlib.import_module(module), name)
        for module in sorted(_names(env.get("HOLON_PLUGINS")) or ()):
            if module not in block and self.pm.get_plugin(module) is None:
                self._register_module(module)
        self.check_pending()
        self.collect_engines()
        return self

    def _register_entry_point(self, ep: EntryPointRef) -> None:
        try:
            plugin = ep.load()
        except Exception as exc:
            where = f"{ep.dist_name} {ep.dist_version}" if ep.dist_name else ep.value
            raise PluginError(
                f'error loading holon plugin "{ep.name}" from {where}: {exc}',
                hint=f"reinstall it, or set HOLON_DISABLE_PLUGINS={ep.name} to skip it",
            ) from exc
        self.register(plugin, ep.name)
        self._dists[ep.name] = (ep.dist_name, ep.dist_version)

    def _register_module(self, module: str) -> None:
        try:
            plugin = importlib.import_module(module)
        except Exception as exc:
            raise PluginError(
                f'error importing holon plugin module "{module}" (from HOLON_PLUGINS): {exc}',
                hint="check the import path in HOLON_PLUGINS, or unset it",
            ) from exc
        self.register(plugin, module)

    def register(self, plugin: object, name: str) -> None:
        try:
            self.pm.register(plugin, name=name)
        except ValueError as exc:
            raise PluginError(f'plugin "{name}" is registered twice: {exc}') from exc
        except pluggy.PluginValidationError as exc:
            raise PluginError(f'plugin "{name}" implements a hook wrongly: {exc}') from exc

    def check_pending(self) -> None:
        try:
            self.pm.check_pending()
        except pluggy.PluginValidationError as exc:
            raise PluginError(
                f"a plugin implements an unknown hook: {exc}",
                hint="check the hook name against holon_core.hooks.specs",
            ) from exc

    def collect_engines(self) -> None:
        self._engines.clear()
        self._engine_owner.clear()
        for impl in self.pm.hook.holon_register_engines.get_hookimpls():
            owner = self.pm.get_name(impl.plugin) or "?"

            def register(adapter: EngineAdapter, _owner: str = owner) -> None:
                if adapter.name in self._engines:
                    raise PluginError(
                        f'engine "{adapter.name}" is registered by both '
                        f'"{self._engine_owner[adapter.name]}" and "{_owner}"',
                        hint=f"uninstall one of them or set HOLON_DISABLE_PLUGINS={_owner}",
                    )
                self._engines[adapter.name] = adapter
                self._engine_owner[adapter.name] = _owner

            impl.function(register=register)

    # -- engines --------------------------------------------------------------------------------
    def engine_names(self) -> list[str]:
        return sorted(self._engines)

    def get_engine(self, name: str) -> EngineAdapter:
        try:
            return self._engines[name]
        except KeyError:
            known = ", ".join(self.engine_names()) or "none"
            raise EngineNotFound(
                f'unknown engine "{name}" (installed: {known})',
                hint=f"pip install holon-adapter-{name}, or pick one of: {known}",
            ) from None

    def engine_owner(self, name: str) -> str:
        return self._engine_owner[name]

    def adapter_version(self, name: str) -> tuple[str | None, str | None]:
        """(distribution, version) of the plugin that registered engine ``name``."""
        return self._dists.get(self._engine_owner.get(name, ""), (None, None))

    # -- the typed hook facade -------------------------------------------------------------------
    def preflight(self, engine: EngineAdapter, env: Mapping[str, str]) -> list[Check]:
        results: list[list[Check] | None] = self.pm.hook.holon_preflight(engine=engine, env=env)
        return [check for batch in reversed(results) if batch for check in batch]

    def stage_skills(self, run: RunContext, skills: list[ResolvedSkill]) -> list[StagedSkill]:
        staged: list[StagedSkill] | None = self.pm.hook.holon_stage_skills(run=run, skills=skills)
        return staged or []

    def launch(self, run: RunContext) -> LaunchPlan:
        plan: LaunchPlan | None = self.pm.hook.holon_launch(run=run)
        if plan is None:
            raise PluginError(f'no plugin could launch engine "{run.engine.name}"')
        return plan

    def event_parser(self, run: RunContext) -> EventParser:
        parser: EventParser | None = self.pm.hook.holon_event_parser(run=run)
        if parser is None:
            raise PluginError(f'no plugin gave an event parser for engine "{run.engine.name}"')
        return parser

    def manifest_metadata(self, run: RunContext, report: EngineReport) -> dict[str, Any]:
        merged: dict[str, Any] = {}
        results: list[dict[str, Any] | None] = self.pm.hook.holon_manifest_metadata(
            run=run, report=report
        )
        for fragment in reversed(results):  # pluggy calls last-registered first
            if fragment:
                merged.update(fragment)
        return merged

    # -- introspection ------------------------------------------------------------------------
    def describe(self) -> list[PluginInfo]:
        infos: list[PluginInfo] = []
        for name, plugin in sorted(self.pm.list_name_plugin(), key=lambda item: item[0]):
            dist, version = self._dists.get(name, (None, None))
            hooks = sorted(caller.name for caller in self.pm.get_hookcallers(plugin) or [])
            engines = [e for e, owner in self._engine_owner.items() if owner == name]
            module = getattr(plugin, "__name__", type(plugin).__name__)
            infos.append(PluginInfo(name, module, dist, version, hooks, sorted(engines)))
        return infos


def _names(value: str | None) -> set[str] | None:
    if value is None:
        return None
    return {part.strip() for part in value.split(",") if part.strip()}


def load_plugins(env: Mapping[str, str] | None = None) -> HolonPlugins:
    """A fresh, fully loaded facade (one per process or per test)."""
    return HolonPlugins().load(env)
