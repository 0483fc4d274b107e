"""The scripted escape every engine's tool tries, and what the host must show afterwards.

The host side is the conformance suite's room case (:mod:`holon_conformance.suite.room_escape`):
a user's home with a key in it, a sibling repository, a place outside the workspace to write
to, a TCP listener on the host's loopback counting who connects, and an HTTP server the run
allows under a name the proxy resolves (``HOLON_SANDBOX_RESOLVE``). This wraps it for the
tests that drive holon-agent themselves: the user's ``HOME`` and the record's checks.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from holon_conformance.suite.room_escape import (
    ALLOWED_BODY,
    ALLOWED_NAME,
    DENIED_NAME,
    RoomEscape,
    open_escape,
)

__all__ = ["ALLOWED_BODY", "ALLOWED_NAME", "DENIED_NAME", "Escape", "make_escape"]


@dataclass
class Escape:
    root: Path
    room: RoomEscape

    @property
    def secret(self) -> str:
        return self.room.secret

    @property
    def home(self) -> Path:
        return self.room.home

    @property
    def outside(self) -> Path:
        return self.room.outside

    @property
    def allowed_port(self) -> int:
        return self.room.allowed_port

    def commands(self) -> list[str]:
        """Each tries one way out and prints NAME-failed when it fails (the command text never
        holds that word, so a model reading it back cannot be fooled by the command itself)."""
        return self.room.commands()

    def env(self) -> dict[str, str]:
        """holon-agent's settings: the user's HOME, and the one host the run allows."""
        return {"HOME": str(self.home), **self.room.env()}

    def close(self) -> None:
        self.room.close()

    def assert_contained_files(self, output_dir: Path) -> None:
        """Nothing was written outside, and the home's key is in nothing the run left."""
        for target in self.room.write_targets:
            assert not target.exists(), f"the engine wrote {target}, outside its room"
        for path in output_dir.rglob("*"):
            if path.is_file():
                assert self.secret not in path.read_text(errors="replace"), (
                    f"the home's key reached {path.relative_to(output_dir)}"
                )

    def assert_contained(self, output_dir: Path) -> list[dict[str, Any]]:
        """Nothing got out, and the record says what was tried; the network lines."""
        self.assert_contained_files(output_dir)
        assert self.room.accepted == 0, "a tool reached a service on the host's loopback"
        lines = (output_dir / "evidence" / "network.ndjson").read_text().splitlines()
        attempts = [json.loads(line) for line in lines]
        denied = [a for a in attempts if a["host"] == DENIED_NAME]
        assert denied and not any(a["allowed"] for a in denied), attempts
        allowed = [a for a in attempts if a["host"] == ALLOWED_NAME]
        assert allowed and all(a["allowed"] for a in allowed), attempts
        assert allowed[0]["bytes_received"] > 0
        return attempts


def make_escape(root: Path) -> Escape:
    """The escape's host side under ``root``: the home, the sibling repo, the servers."""
    return Escape(root, open_escape(root / "user-home", root / "workspace"))
