"""pytest fixtures of the gemini adapter tests (defined in ``gemini_kit``)."""

from __future__ import annotations

from gemini_kit import gemini_binary, provider, task

__all__ = ["gemini_binary", "provider", "task"]
