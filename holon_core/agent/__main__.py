"""``python -m holon_core.agent`` is ``holon-agent``."""

from __future__ import annotations

from holon_core.agent.main import entrypoint

entrypoint()
