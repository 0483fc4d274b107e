from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from holon_core.testing.github import FakeGitHub

from .kit import TOKEN, World, make_world

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path


@pytest.fixture
def gh() -> Iterator[FakeGitHub]:
    with FakeGitHub(token=TOKEN) as server:
        yield server


@pytest.fixture
def world(tmp_path: Path, gh: FakeGitHub) -> World:
    gh_world = make_world(tmp_path, gh)
    gh.add_issue("acme/widgets", 7, "spin() divides by zero", "Calling spin() crashes.")
    return gh_world
