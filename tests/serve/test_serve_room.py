"""A serve turn's engine runs in a room of its own, with that turn's workspace: the user's
home is not there, its writes outside land nowhere, and the turn's record says so
(docs/sandbox.md; the one-shot escape is tests/sandbox/)."""

from __future__ import annotations

import json
import secrets
from pathlib import Path
from typing import Any

from .conftest import start, stop_quietly


def test_a_serve_turn_runs_in_its_room(tmp_path: Path) -> None:
    home, outside = tmp_path / "user-home", tmp_path / "elsewhere"
    (home / ".ssh").mkdir(parents=True)
    outside.mkdir()
    key = "HOMEKEY-" + secrets.token_hex(8)
    (home / ".ssh" / "id_ed25519").write_text(key + "\n")
    serve = start(tmp_path / "serve", env={"HOME": str(home)})
    try:
        (serve.workspace / "README.md").write_text("hello\n")
        steps: list[dict[str, Any]] = [
            {"run": f"cat {home}/.ssh/id_ed25519 || printf '%s-failed\\n' read-home"},
            {"run": f"echo pwned > {outside}/pwned || printf '%s-failed\\n' write"},
            {"write": {"path": "turn.txt", "content": "done\n"}},
            {"say": "done"},
        ]
        serve.script("r1", steps)
        response = serve.client.create("try the room", holon={"turn_id": "r1"})
        assert response["status"] == "completed", response
    finally:
        stop_quietly(serve)
    assert not (outside / "pwned").exists()
    turn = serve.turn_dir("r1")
    for path in turn.rglob("*"):
        if path.is_file():
            assert key not in path.read_text(errors="replace"), path
    events = (turn / "events.ndjson").read_text() + (
        turn / "evidence" / "events.ndjson"
    ).read_text()
    assert "read-home-failed" in events and "write-failed" in events
    manifests = list(turn.rglob("manifest.json")) + list(serve.output.rglob("r1*/manifest.json"))
    sandbox = {json.loads(m.read_text())["metadata"]["sandbox"]["mode"] for m in manifests}
    assert sandbox == {"on"}, manifests
