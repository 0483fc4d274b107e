"""Step 3: fail fast, before anything is touched, with a message that says what to do."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from holon_core.engine.checks import Check
from holon_core.errors import HolonError

if TYPE_CHECKING:
    from holon_core.agent.paths import AgentPaths
    from holon_core.engine.adapter import EngineAdapter
    from holon_core.hooks.manager import HolonPlugins


class PreflightFailed(HolonError):
    reason = "preflight_failed"


def workspace_check(workspace: Path) -> Check:
    if workspace.is_dir():
        return Check(name="workspace", ok=True, detail=str(workspace))
    return Check(
        name="workspace",
        ok=False,
        detail=f"{workspace} is not a directory",
        hint="pass --workspace DIR or set HOLON_WORKSPACE_DIR",
        reason="invalid_input",
    )


def preflight_checks(
    plugins: HolonPlugins | None,
    engine: EngineAdapter | None,
    paths: AgentPaths,
    env: Mapping[str, str],
) -> list[Check]:
    """The workspace, then the adapter's own checks (binary, version, credentials)."""
    checks = [workspace_check(paths.workspace)]
    if plugins is not None and engine is not None:
        checks += plugins.preflight(engine, env)
    return checks


def preflight_refusal(checks: list[Check]) -> PreflightFailed | None:
    """What the run ends with when a check failed: every failing one named, the first's
    reason (``engine_missing``, ``missing_credentials``...); None when all passed."""
    failed = [c for c in checks if not c.ok]
    if not failed:
        return None
    return PreflightFailed(
        "preflight failed: " + "; ".join(c.message() for c in failed),
        reason=failed[0].reason or "preflight_failed",
    )


def located(
    engine: EngineAdapter, env: Mapping[str, str], checks: list[Check]
) -> tuple[Path | None, str | None]:
    """The engine binary and the version its check read."""
    binary = engine.locate_binary(env)
    version = None
    for check in checks:
        if check.name == "engine_binary" and binary is not None:
            version = check.detail.rsplit(" ", 1)[-1]
    return binary, version


def run_preflight(
    plugins: HolonPlugins, engine: EngineAdapter, paths: AgentPaths, env: Mapping[str, str]
) -> tuple[Path | None, str | None, list[Check]]:
    """All checks; raises PreflightFailed naming every failing one. Returns binary, version."""
    checks = preflight_checks(plugins, engine, paths, env)
    refused = preflight_refusal(checks)
    if refused is not None:
        raise refused
    return (*located(engine, env, checks), checks)
