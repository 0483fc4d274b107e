"""holon-adapter-codex: OpenAI Codex CLI behind the holon agent contract."""

from __future__ import annotations
