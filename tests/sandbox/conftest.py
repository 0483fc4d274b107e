from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .escape import Escape, make_escape


@pytest.fixture
def escape(tmp_path: Path) -> Iterator[Escape]:
    made = make_escape(tmp_path / "host")
    yield made
    made.close()
