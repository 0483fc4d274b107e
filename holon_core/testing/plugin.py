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


@pytest.fixture(scope="session")
def wheelhouse() -> Path:
    """The locked third-party wheels an install test resolves against: ``$HOLON_WHEELHOUSE``.

    ``make`` fills it (``make wheelhouse``) and exports the variable. An install from built wheels
    must not lean on uv's cache: that passes only on a machine where an earlier run happened to
    leave the right index pages there, and fails on a fresh one (see ``offline_install``).
    """
    found = os.environ.get("HOLON_WHEELHOUSE")
    if not found or not (Path(found) / "requirements.txt").is_file():
        pytest.fail(
            f"no wheelhouse (HOLON_WHEELHOUSE={found!r}); run the tests through `make test`, "
            "which downloads the locked wheels (`make wheelhouse`) and exports HOLON_WHEELHOUSE"
        )
    return Path(found)


@pytest.fixture
def offline_install(wheelhouse: Path, tmp_path: Path) -> tuple[list[str], dict[str, str]]:
    """Options and environment for a uv install that reaches nothing but local files.

    ``--offline --no-index`` with the wheelhouse as the only source, and a fresh, empty
    ``UV_CACHE_DIR``: whatever any earlier run left in a cache cannot make the install pass.
    Add ``--find-links DIR`` for the wheels under test.
    """
    cache = tmp_path / "uv-cache"
    cache.mkdir()
    options = ["--offline", "--no-index", "--find-links", str(wheelhouse)]
    return options, {"UV_CACHE_DIR": str(cache), "UV_PYTHON_DOWNLOADS": "never"}


def pytest_addoption(parser: pytest.Parser) -> None:
    from holon_core.testing.cassettes import add_options

    add_options(parser)


def pytest_collection_modifyitems(session: pytest.Session, items: list[pytest.Item]) -> None:
    """``--holon-cassettes DIR``: each cassette under DIR one item (testing/cassettes.py)."""
    if session.config.getoption("holon_cassettes"):
        from holon_core.testing.cassettes import add_items

        add_items(session, items)
