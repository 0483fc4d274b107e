"""``python -m holon_core.agent`` is ``holon-agent``."""

from __future__ import annotations

import sys

from holon_core.agent.main import main

sys.exit(main())
