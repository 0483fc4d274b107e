"""Fixtures for the codex adapter tests: the real pinned CLI, the scripted model server, tasks.

Nothing here fakes the engine; only the model's HTTP API is scripted. Process leaks are
checked with the conformance plugin's ``no_leftover_processes`` (a child subreaper, so
Codex's tool processes, which run in their own PTY sessions, are seen too).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from holon_conformance.provider import ScriptedProvider

from holon_core.testing import Task, make_task


@pytest.fixture(scope="session")
def codex_binary(engine_binary: Callable[[str], Path]) -> Path:
    """The pinned ``codex``; a missing engine fails the test (never skips)."""
    return engine_binary("codex")


@pytest.fixture
def task(tmp_path: Path, codex_binary: Path, no_leftover_processes: set[int]) -> Task:
    """A small committed git workspace; the leak check runs after the test."""
    return make_task(tmp_path / "task", goal="Create hello.txt", files={"README.md": "hi\n"})


@pytest.fixture
def provider() -> Iterator[Callable[[str], ScriptedProvider]]:
    """``provider("write-and-run")`` starts a scripted model server, stopped at teardown."""
    started: list[ScriptedProvider] = []

    def start(scenario: str) -> ScriptedProvider:
        server = ScriptedProvider(scenario).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()
