"""A two-turn ``holon-agent serve`` session for the resume tests: turn 2 continues turn 1
through ``previous_response_id``. A uniquely named module (see ``acp_kit``)."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from holon_core.serve.client import ServeClient, start_server
from holon_core.testing import Task
from holon_core.testing.agent_run import agent_env


@dataclass
class ServedTurn:
    response: dict[str, Any]
    dir: Path

    @property
    def text(self) -> str:
        parts = [
            str(part.get("text", ""))
            for item in self.response.get("output") or []
            if item.get("type") == "message"
            for part in item.get("content") or []
        ]
        return "".join(parts)

    def json(self, name: str) -> dict[str, Any]:
        data: dict[str, Any] = json.loads((self.dir / name).read_text(encoding="utf-8"))
        return data

    @property
    def acp(self) -> dict[str, Any]:
        found: dict[str, Any] = self.json("manifest.json")["metadata"].get("acp", {})
        return found


def two_turns(
    task: Task,
    engine: str,
    env: Mapping[str, str],
    inputs: tuple[str, str],
    before_turn: Callable[[int], None] = lambda _index: None,
) -> list[ServedTurn]:
    """Start serve, run turn 1, then turn 2 continuing it; shut down. Turns as served."""
    sock = Path(tempfile.mkdtemp(prefix="hs-")) / "agent.sock"
    args = ["--engine", engine, "--input", str(task.input), "--workspace", str(task.workspace)]
    args += ["--output", str(task.output), "--state", str(task.state)]
    server = start_server(sock, args, env=agent_env(env), timeout=120)
    turns: list[ServedTurn] = []
    try:
        with ServeClient(sock, timeout=300) as client:
            previous: dict[str, Any] = {}
            for index, text in enumerate(inputs):
                before_turn(index)
                response = client.create(text, **previous)
                turn_id = (response.get("holon") or {}).get("turn_id")
                turns.append(ServedTurn(response, task.output / "turns" / str(turn_id)))
                previous = {"previous_response_id": response["id"]}
            client.shutdown()
        server.wait(60)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    return turns
