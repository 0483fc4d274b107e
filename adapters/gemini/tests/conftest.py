"""pytest fixtures of the gemini adapter tests (defined in ``gemini_kit``; ``task`` and the
manifest fixtures come from ``holon_core.testing``)."""

from __future__ import annotations

from gemini_kit import gemini_binary, provider

__all__ = ["gemini_binary", "provider"]
