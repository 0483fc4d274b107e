"""``HOLON_GATEWAY``: whether a run's model calls go through the gateway (cheap to import)."""

from __future__ import annotations

from collections.abc import Mapping

#: ``HOLON_GATEWAY`` when unset: one-shot runs and serve sessions alike.
DEFAULT = "on"
_ON = {"on", "1", "true", "yes"}
_OFF = {"off", "0", "false", "no"}


def gateway_setting(env: Mapping[str, str], default: str | None = None) -> bool:
    """On or off; ValueError naming the variable and its values on anything else."""
    value = (env.get("HOLON_GATEWAY") or default or DEFAULT).strip().lower()
    if value in _ON:
        return True
    if value in _OFF:
        return False
    raise ValueError(f"HOLON_GATEWAY={value!r} is neither on nor off; set HOLON_GATEWAY=on or off")
