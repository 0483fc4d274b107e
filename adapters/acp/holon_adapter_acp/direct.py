"""The direct adapter a profile builds on, found the way holon finds every engine.

A profile (``acp-gemini``) runs the same CLI as a direct adapter (``gemini``) in its ACP mode,
with the same hermetic home, credentials, endpoint variables and skills. It asks the installed
plugin for that adapter through the public plugin contract (the ``holon`` entry-point group
and its ``holon_register_engines`` hook), never by importing the other package: adapters do
not depend on each other, and a missing one is a clear preflight failure.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from holon_core import EngineAdapter


@cache
def direct_adapter(engine: str) -> EngineAdapter | None:
    """The installed adapter registered as ``engine``, or None when no plugin provides it."""
    from importlib.metadata import entry_points  # only a profile's preflight or launch asks

    found: list[EngineAdapter] = []
    for point in entry_points(group="holon"):
        if point.name != engine:
            continue
        plugin = point.load()
        register = getattr(plugin, "holon_register_engines", None)
        if register is not None:
            register(register=found.append)
    return next((adapter for adapter in found if adapter.name == engine), None)


def flag_value(argv: list[str], flag: str) -> str | None:
    """The word after ``flag`` in a command line (the direct launch's model, say)."""
    for index, word in enumerate(argv[:-1]):
        if word == flag:
            return argv[index + 1]
    return None
