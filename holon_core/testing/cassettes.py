"""``pytest --holon-cassettes DIR``: every cassette under DIR is one test item.

Each item replays its cassette with ``holon cassette check`` semantics (a ``holon run`` of the
recorded engine and model, answered from the cassette, strict mode) on the workspace
``--holon-cassette-workspace W`` names (default: the current directory) and fails with the
check's report when outcome, reason, ``diff.patch`` or tool calls differ. So a team's
recorded runs run in CI like any test, with no key and no network (docs/cassettes.md).

Loaded with holon's pytest plugin (``holon_core.testing.plugin``); nothing is collected
unless the option is given.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

OPTION = "--holon-cassettes"


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("holon", "holon")
    group.addoption(
        OPTION,
        action="append",
        default=[],
        metavar="DIR",
        help="replay every holon cassette under DIR as a test item (docs/cassettes.md)",
    )
    group.addoption(
        "--holon-cassette-workspace",
        metavar="W",
        default=".",
        help="the workspace at the cassettes' recorded baseline (default: the current dir)",
    )
    group.addoption(
        "--holon-cassette-mode",
        choices=("strict", "lenient"),
        default="strict",
        help="strict (default): any request not recorded fails the item",
    )


def find_cassettes(root: Path) -> Iterator[Path]:
    """Directories at or under ``root`` holding a ``cassette.json``, in path order."""
    if (root / "cassette.json").is_file():
        yield root
        return
    for found in sorted(root.rglob("cassette.json")):
        yield found.parent


def add_items(session: pytest.Session, items: list[pytest.Item]) -> None:
    config = session.config
    roots = [Path(d).expanduser().absolute() for d in config.getoption("holon_cassettes")]
    for root in roots:
        if not root.is_dir():
            raise pytest.UsageError(f"{OPTION} {root}: not a directory")
        for cassette in find_cassettes(root):
            name = f"cassette[{cassette.relative_to(root.parent)}]"
            item = CassetteItem.from_parent(session, name=name, nodeid=name, cassette=cassette)
            items.append(item)


class CassetteItem(pytest.Item):
    """One cassette, replayed and compared (``holon cassette check``)."""

    def __init__(self, *, cassette: Path, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.cassette = cassette

    def runtest(self) -> None:
        config = self.config
        workspace = Path(config.getoption("holon_cassette_workspace")).expanduser().absolute()
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "holon_core",
                "cassette",
                "check",
                str(self.cassette),
                "--workspace",
                str(workspace),
                "--cassette-mode",
                config.getoption("holon_cassette_mode"),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise CassetteMismatch((done.stdout + done.stderr).strip())

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, CassetteMismatch):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.cassette, None, self.name


class CassetteMismatch(Exception):
    """The replay did not agree with the recording; the message is the check's report."""
