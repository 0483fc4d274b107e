"""holon-adapter-gemini: Google Gemini CLI behind the holon agent contract."""

from __future__ import annotations

from typing import TYPE_CHECKING

from holon_adapter_gemini.adapter import DEFAULT_MODEL, GeminiAdapter
from holon_core import hookimpl

if TYPE_CHECKING:
    from collections.abc import Callable

    from holon_adapter_gemini.parser import GeminiParser
    from holon_core import EngineAdapter

__all__ = ["DEFAULT_MODEL", "GeminiAdapter", "GeminiParser", "holon_register_engines"]


@hookimpl
def holon_register_engines(register: Callable[[EngineAdapter], None]) -> None:
    register(GeminiAdapter())


def __getattr__(name: str) -> object:
    """``GeminiParser``, imported on first use: loading the plugin skips the parser."""
    if name == "GeminiParser":
        from holon_adapter_gemini.parser import GeminiParser

        return GeminiParser
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
