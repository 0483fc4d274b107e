"""holon-adapter-claude: Claude Code behind the holon agent contract."""

from __future__ import annotations
