"""holon-adapter-acp: drive any Agent Client Protocol agent as a holon engine.

Engines: ``acp`` (any agent, from ``HOLON_ACP_COMMAND``) and the profiles in ``profiles.py``.
The parser is imported when a run asks for it and the ACP SDK only inside the bridge process:
every holon process loads every adapter plugin, ``holon-agent --probe`` included.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from holon_adapter_acp.adapter import AcpAdapter, generic_adapter
from holon_adapter_acp.profiles import PROFILES
from holon_core import hookimpl

if TYPE_CHECKING:
    from collections.abc import Callable

    from holon_adapter_acp.parser import AcpParser
    from holon_core import EngineAdapter

__all__ = ["AcpAdapter", "AcpParser", "holon_register_engines"]


@hookimpl
def holon_register_engines(register: Callable[[EngineAdapter], None]) -> None:
    register(generic_adapter(os.environ))
    for profile in PROFILES:
        register(profile())


def __getattr__(name: str) -> object:
    """``AcpParser``, imported on first use: loading the plugin skips the parser."""
    if name == "AcpParser":
        from holon_adapter_acp.parser import AcpParser

        return AcpParser
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
