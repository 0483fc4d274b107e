"""pytest fixtures for holon and adapter authors (auto-loaded via the pytest11 entry point)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from holon_core.testing.agent_run import AgentResult, processes_under
from holon_core.testing.task import Task, make_task


@pytest.fixture
def task(tmp_path: Path) -> Iterator[Task]:
    """A small git workspace (README.md committed, goal "Create hello.txt"); after the test no
    process may still run inside it (any left is killed, and the test fails naming it)."""
    made = make_task(tmp_path / "task", goal="Create hello.txt", files={"README.md": "hi\n"})
    yield made
    leftovers = processes_under(tmp_path)
    for proc in leftovers:
        proc.kill()
    assert not leftovers, f"processes survived the run: {[p.cmdline() for p in leftovers]}"


@pytest.fixture(scope="session")
def manifest_schema() -> dict[str, Any]:
    """manifest.json's published JSON Schema (``holon schema manifest``)."""
    from holon_core.models.manifest import manifest_schema

    return manifest_schema()


@pytest.fixture
def assert_valid_manifest(
    manifest_schema: dict[str, Any],
) -> Callable[[dict[str, Any] | None], dict[str, Any]]:
    """``assert_valid_manifest(data)``: the manifest exists and validates against the
    published schema with jsonschema (an independent validator, not holon's own models)."""
    jsonschema = _jsonschema()

    def check(manifest: dict[str, Any] | None) -> dict[str, Any]:
        assert manifest is not None, "no manifest.json was written"
        jsonschema.validate(manifest, manifest_schema)
        return manifest

    return check


@pytest.fixture
def valid_manifest(
    assert_valid_manifest: Callable[[dict[str, Any] | None], dict[str, Any]],
) -> Callable[[AgentResult], dict[str, Any]]:
    """``valid_manifest(result)``: as ``assert_valid_manifest``, for a run's result (a
    missing manifest shows holon-agent's stderr)."""

    def check(result: AgentResult) -> dict[str, Any]:
        assert result.manifest is not None, f"no manifest.json was written: {result.stderr}"
        return assert_valid_manifest(result.manifest)

    return check


def _jsonschema() -> Any:
    try:
        import jsonschema
    except ImportError:  # a test dependency of the suite using the fixture, not of holon-core
        pytest.fail("the manifest fixtures need jsonschema: pip install jsonschema")
    return jsonschema


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
