"""holon-adapter-gemini: Google Gemini CLI behind the holon agent contract."""

from __future__ import annotations
