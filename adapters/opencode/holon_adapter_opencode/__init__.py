"""holon-adapter-opencode: OpenCode behind the holon agent contract."""

from __future__ import annotations

from typing import TYPE_CHECKING

from holon_adapter_opencode.adapter import OpenCodeAdapter
from holon_core import hookimpl

if TYPE_CHECKING:
    from collections.abc import Callable

    from holon_adapter_opencode.parser import OpenCodeParser
    from holon_core import EngineAdapter

__all__ = ["OpenCodeAdapter", "OpenCodeParser", "holon_register_engines"]


@hookimpl
def holon_register_engines(register: Callable[[EngineAdapter], None]) -> None:
    register(OpenCodeAdapter())


def __getattr__(name: str) -> object:
    """``OpenCodeParser``, imported on first use: loading the plugin skips the parser."""
    if name == "OpenCodeParser":
        from holon_adapter_opencode.parser import OpenCodeParser

        return OpenCodeParser
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
