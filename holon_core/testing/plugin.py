"""pytest fixtures for holon and adapter authors (auto-loaded via the pytest11 entry point)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from holon_core.testing.task import Task, make_task


@pytest.fixture
def task_factory(tmp_path: Path) -> Callable[..., Task]:
    """``task_factory(goal=..., files=..., replay=[...])`` -> a fresh task under tmp_path."""
    counter = iter(range(1_000_000))

    def factory(**kwargs: Any) -> Task:
        return make_task(tmp_path / f"task{next(counter)}", **kwargs)

    return factory


@pytest.fixture(scope="session")
def uv_binary() -> str:
    """The uv that built this checkout: ``$UV`` (exported by the Makefile), else uv on PATH.

    ``make`` bootstraps uv into ``.tools/bin`` when the machine has none, so a test must not
    look for it on PATH alone: that passes only where someone installed uv by hand.
    """
    uv = os.environ.get("UV") or shutil.which("uv")
    if not uv or not Path(uv).is_file():
        pytest.fail(
            f"uv not found (UV={os.environ.get('UV')!r}, none on PATH); "
            "run the tests through `make test`, which bootstraps uv and exports UV"
        )
    return uv
