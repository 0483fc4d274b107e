"""pytest fixtures for holon and adapter authors (auto-loaded via the pytest11 entry point)."""

from __future__ import annotations

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
