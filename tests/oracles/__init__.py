"""Where the tests find the published validators ``make oracles`` unpacked (requirements.txt).

A missing oracle fails the test that needs it, never skips it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def oracle_site(needed: str) -> Path:
    """The unpacked oracles' dir, failing unless it holds ``needed`` (a relative path)."""
    base = Path(os.environ.get("HOLON_ORACLES_DIR") or ROOT / ".tools" / "oracles")
    site = base / "site"
    if not (site / needed).is_file():
        pytest.fail(
            f"the test oracle {needed} is not installed in {site}; run `make oracles` "
            "(downloads the pinned wheels of tests/oracles/requirements.txt)"
        )
    return site
