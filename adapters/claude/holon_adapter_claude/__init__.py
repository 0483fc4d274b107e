"""holon-adapter-claude: Claude Code behind the holon agent contract."""

from __future__ import annotations

from typing import TYPE_CHECKING

from holon_adapter_claude.adapter import ClaudeAdapter
from holon_adapter_claude.parser import ClaudeParser
from holon_core.hookspecs import hookimpl

if TYPE_CHECKING:
    from collections.abc import Callable

    from holon_core.adapter import EngineAdapter

__all__ = ["ClaudeAdapter", "ClaudeParser", "holon_register_engines"]


@hookimpl
def holon_register_engines(register: Callable[[EngineAdapter], None]) -> None:
    register(ClaudeAdapter())
