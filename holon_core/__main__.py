"""``python -m holon_core`` is ``holon``."""

from __future__ import annotations

import sys

from holon_core.cli.main import main

sys.exit(main())
