"""pytest plugin ``holon-conformance``: scripted provider, engine binaries, homes, leak checks,
and the RFC-0002 conformance suite's hooks (``--holon-adapter``; see ``suite/plugin.py``).

Registered as a ``pytest11`` entry point, so every test session loads it: imports of the
provider and of holon_core happen inside the fixtures to keep this module cheap.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import pytest

from holon_conformance.suite.plugin import (  # noqa: F401  (hooks and fixture re-exported)
    holon_adapter_name,
    holon_target,
    pytest_addoption,
    pytest_collection_modifyitems,
    pytest_configure,
    pytest_generate_tests,
    pytest_load_initial_conftests,
    pytest_runtest_makereport,
    pytest_runtest_setup,
    pytest_sessionfinish,
    pytest_terminal_summary,
)

if TYPE_CHECKING:
    from pathlib import Path

    from holon_conformance.provider import Scenario, ScriptedProvider

ProviderFactory = Callable[..., "ScriptedProvider"]


@pytest.fixture
def scripted_provider() -> Iterator[ProviderFactory]:
    """Factory: ``scripted_provider("write-and-run", log_path=None, workdir=None)``.

    Returns a started :class:`ScriptedProvider` on 127.0.0.1; all are stopped at teardown.
    """
    from holon_conformance.provider import ScriptedProvider

    started: list[ScriptedProvider] = []

    def make(scenario: Scenario | str | Path, **kwargs: Any) -> ScriptedProvider:
        provider = ScriptedProvider(scenario, **kwargs).start()
        started.append(provider)
        return provider

    yield make
    for provider in started:
        provider.stop()


@pytest.fixture(scope="session")
def engine_binary() -> Callable[[str], Path]:
    """Factory: ``engine_binary(NAME) -> Path`` for any installed adapter's engine; fails
    (never skips) when the adapter or its engine is missing."""
    from holon_core.errors import EngineNotFound
    from holon_core.hooks.manager import load_plugins

    plugins = load_plugins()

    def find(name: str) -> Path:
        try:
            adapter = plugins.get_engine(name)
        except EngineNotFound as exc:
            pytest.fail(str(exc))
        binary = adapter.locate_binary(os.environ)
        if binary is None:
            pytest.fail(
                f"engine {name!r} is not installed: run `holon engines install {name}` "
                f"(or `make engines`), or point {adapter.binary_env} at the binary"
            )
        return binary

    return find


@pytest.fixture
def engine_home(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    """Factory: ``engine_home("claude") -> Path``, a fresh run-local HOME with ``tmp/`` inside.

    Use it as HOME and ``home / "tmp"`` as TMPDIR so nothing touches the real home.
    """

    def make(label: str = "home") -> Path:
        home = tmp_path_factory.mktemp(f"{label}-home")
        (home / "tmp").mkdir()
        return home

    return make


@pytest.fixture
def no_leftover_processes() -> Iterator[set[int]]:
    """Fails the test if it leaves any process alive (orphaned tool processes included)."""
    from holon_conformance.processes import (
        assert_no_leftovers,
        become_subreaper,
        descendant_pids,
    )

    become_subreaper()
    before = descendant_pids()
    yield before
    assert_no_leftovers(before)
