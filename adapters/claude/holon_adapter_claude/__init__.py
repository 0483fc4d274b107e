"""holon-adapter-claude: Claude Code behind the holon agent contract."""

from __future__ import annotations

from typing import TYPE_CHECKING

from holon_adapter_claude.adapter import ClaudeAdapter
from holon_core import hookimpl

if TYPE_CHECKING:
    from collections.abc import Callable

    from holon_adapter_claude.parser import ClaudeParser
    from holon_core import EngineAdapter

__all__ = ["ClaudeAdapter", "ClaudeParser", "holon_register_engines"]


@hookimpl
def holon_register_engines(register: Callable[[EngineAdapter], None]) -> None:
    register(ClaudeAdapter())


def __getattr__(name: str) -> object:
    """``ClaudeParser``, imported on first use: loading the plugin skips the parser."""
    if name == "ClaudeParser":
        from holon_adapter_claude.parser import ClaudeParser

        return ClaudeParser
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
