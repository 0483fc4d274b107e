"""``HOLON_SANDBOX`` (``--sandbox``): whether the engine runs in a room (cheap to import)."""

from __future__ import annotations

from collections.abc import Mapping

VARIABLE = "HOLON_SANDBOX"
#: When unset: on, for every run, turn and batch cell.
DEFAULT = "on"
MODES = ("on", "off")
_ON = {"on", "1", "true", "yes"}
_OFF = {"off", "0", "false", "no"}


def sandbox_setting(env: Mapping[str, str]) -> bool:
    """On or off; ValueError naming the variable and its values on anything else."""
    value = (env.get(VARIABLE) or DEFAULT).strip().lower()
    if value in _ON:
        return True
    if value in _OFF:
        return False
    raise ValueError(
        f"{VARIABLE}={value!r} is neither on nor off; set {VARIABLE}=on (or --sandbox on) "
        "to run the engine in holon's room, off to run it as the user"
    )
