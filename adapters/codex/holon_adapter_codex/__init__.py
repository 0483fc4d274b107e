"""holon-adapter-codex: OpenAI Codex CLI behind the holon agent contract."""

from __future__ import annotations

from typing import TYPE_CHECKING

from holon_adapter_codex.adapter import CodexAdapter
from holon_core import hookimpl

if TYPE_CHECKING:
    from collections.abc import Callable

    from holon_adapter_codex.parser import CodexParser
    from holon_core import EngineAdapter

__all__ = ["CodexAdapter", "CodexParser", "holon_register_engines"]


@hookimpl
def holon_register_engines(register: Callable[[EngineAdapter], None]) -> None:
    register(CodexAdapter())


def __getattr__(name: str) -> object:
    """``CodexParser``, imported on first use: loading the plugin skips the parser."""
    if name == "CodexParser":
        from holon_adapter_codex.parser import CodexParser

        return CodexParser
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
