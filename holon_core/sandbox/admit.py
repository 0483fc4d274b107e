"""The room checked before anything starts: one check for the run and the probe.

``--sandbox on`` (the default) on a machine that cannot build the room refuses the run with
``sandbox_unavailable``, what failed and the fix, before the engine is launched; the probe says
the same. ``off`` passes and says that the engine runs as the user.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from holon_core.errors import HolonError
from holon_core.sandbox.setting import VARIABLE, sandbox_setting


class SandboxUnavailable(HolonError):
    reason = "sandbox_unavailable"


class SandboxSettingInvalid(HolonError):
    reason = "invalid_input"


def sandbox_problem(env: Mapping[str, str], allow: Sequence[str] = ()) -> HolonError | None:
    """Why a run with these settings cannot start its room, or None (also when it is off)."""
    try:
        wanted = sandbox_setting(env)
    except ValueError as exc:
        return SandboxSettingInvalid(str(exc))
    if not wanted:
        return None
    from holon_core.sandbox.bwrap import probe
    from holon_core.sandbox.policy import PolicyError, network_policy

    try:
        network_policy(env, allow)
    except PolicyError as exc:
        return SandboxSettingInvalid(str(exc), hint=exc.hint)
    found = probe(env)
    if found.problem is not None:
        return SandboxUnavailable(
            f"{VARIABLE}=on: {found.problem}", hint=found.fix or "run with --sandbox off"
        )
    return None


def sandbox_detail(env: Mapping[str, str]) -> str:
    """The probe's line for a passing check."""
    if not sandbox_setting(env):
        return "off: the engine runs as the user, with the user's files and network"
    from holon_core.sandbox.bwrap import probe

    found = probe(env)
    return f"on: bubblewrap {found.version or '?'} ({found.path})"
