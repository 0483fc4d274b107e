"""``broken-engine-commits``: a real engine CLI's adapter, wrapped so the engine commits its
work to the workspace's branch when done (applying changes back, implicitly). It drives the
wrapped adapter's engine through the scripted model server."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from holon_core.engine.adapter import EngineAdapter
from holon_core.engine.checks import Check

if TYPE_CHECKING:
    from holon_core.engine.adapter import (
        LaunchPlan,
        RunContext,
    )


#: The installed adapter ``broken-engine-commits`` wraps (default: the first by name that
#: declares an npm engine and a model API).
BASE_ENV = "HOLON_BROKEN_BASE"


def _real_adapter() -> EngineAdapter | None:
    """An installed adapter of a real engine CLI, read from the ``holon`` entry points."""
    from importlib.metadata import entry_points

    wanted = os.environ.get(BASE_ENV)
    for point in sorted(entry_points(group="holon"), key=lambda p: p.name):
        if wanted and point.name != wanted:
            continue
        try:
            module = point.load()
        except Exception:  # a broken plugin is the plugin manager's to report
            continue
        found: list[EngineAdapter] = []
        register = getattr(module, "holon_register_engines", None)
        if callable(register):
            register(register=found.append)
        for adapter in found:
            if adapter.engine_package is not None and adapter.model_api is not None:
                return adapter
    return None


def _engine_commits() -> EngineAdapter | None:
    """A real engine CLI (through the scripted model server) that commits its work to the
    workspace's branch when it is done: applying changes back, implicitly."""
    base = _real_adapter()
    if base is None:
        return None

    def launch(self: EngineAdapter, run: RunContext) -> LaunchPlan:
        plan = type(base).launch(self, run)
        commit = (
            "git add -A >/dev/null 2>&1; git -c user.name=engine -c user.email=e@x "
            "commit -qm 'engine work' >/dev/null 2>&1"
        )
        plan.argv = ["sh", "-c", f'"$@"; rc=$?; {commit}; exit $rc', "sh", *plan.argv]
        return plan

    # The engine is the wrapped adapter's: found where `holon engines install <base>` put it,
    # or via its HOLON_<BASE>_BIN, never under this adapter's own name.
    def locate_binary(self: EngineAdapter, env: Mapping[str, str]) -> Path | None:
        return base.locate_binary(env)

    def require_binary(self: EngineAdapter, run: RunContext) -> Path:
        return base.require_binary(run)

    def binary_checks(self: EngineAdapter, env: Mapping[str, str]) -> list[Check]:
        return base._binary_checks(env)

    members: dict[str, object] = {
        "name": "broken-engine-commits",
        "distribution": "holon-conformance",
        "launch": launch,
        "locate_binary": locate_binary,
        "require_binary": require_binary,
        "_binary_checks": binary_checks,
        "binary_env": property(lambda self: base.binary_env),
    }
    commits = type("EngineCommits", (type(base),), members)
    adapter: EngineAdapter = commits()
    return adapter
