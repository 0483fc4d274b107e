"""A real ``holon-agent serve`` process (replay engine) on a Unix socket in a tmp dir."""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from holon_conformance.suite import open_responses

from holon_core.serve.client import ServeClient, start_server


@dataclass
class Serve:
    """A running server and the dirs it was given."""

    root: Path
    socket: Path
    process: subprocess.Popen[bytes]
    client: ServeClient

    @property
    def input(self) -> Path:
        return self.root / "input"

    @property
    def output(self) -> Path:
        return self.root / "output"

    @property
    def workspace(self) -> Path:
        return self.root / "workspace"

    def script(self, turn_id: str, steps: list[dict[str, Any]]) -> None:
        """The replay script of one turn, in the turn's own input dir."""
        context = self.input / "turns" / turn_id / "context"
        context.mkdir(parents=True)
        (context / "replay.yaml").write_text(yaml.safe_dump(steps))

    def turn_dir(self, turn_id: str) -> Path:
        return self.output / "turns" / turn_id

    def raw(self) -> httpx.Client:
        return httpx.Client(
            transport=httpx.HTTPTransport(uds=str(self.socket)), base_url="http://holon"
        )

    def stop(self) -> int:
        """POST /shutdown and wait; the exit code."""
        self.client.shutdown()
        code = self.process.wait(timeout=60)
        self.client.close()
        return code


def start(root: Path, *extra: str, env: dict[str, str] | None = None) -> Serve:
    for name in ("input", "output", "workspace", "state"):
        (root / name).mkdir(parents=True, exist_ok=True)
    socket = root / "ipc" / "agent.sock"
    args = ["--engine", "replay"]
    for name in ("input", "output", "workspace", "state"):
        args += [f"--{name}", str(root / name)]
    full = {k: v for k, v in os.environ.items() if not k.startswith("HOLON_")} | (env or {})
    process = start_server(socket, [*args, *extra], env=full, stderr=subprocess.DEVNULL)
    return Serve(root, socket, process, ServeClient(socket))


def stop_quietly(serve: Serve) -> None:
    if serve.process.poll() is None:
        os.killpg(serve.process.pid, signal.SIGKILL)
        serve.process.wait()
    serve.client.close()


@pytest.fixture(scope="module")
def serve(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serve]:
    """One server per test module: starting one costs more than a replay turn."""
    server = start(tmp_path_factory.mktemp("serve"))
    (server.workspace / "README.md").write_text("hello\n")
    yield server
    stop_quietly(server)


@pytest.fixture(scope="session")
def check_open_responses():
    """Validate a response object or a list of stream events against the official schema
    (``holon_conformance.suite.open_responses``: the spec's generated models, its extension
    rule for events), and the stream's numbering."""

    def check(response_or_events: dict[str, Any] | list[dict[str, Any]]) -> None:
        if isinstance(response_or_events, dict):
            errors = open_responses.response_errors(response_or_events)
            assert not errors, f"not a valid response ({open_responses.SPEC}): {errors}"
            return
        numbers = [e["sequence_number"] for e in response_or_events]
        assert numbers == list(range(1, len(numbers) + 1)), numbers
        errors = open_responses.stream_errors(response_or_events)
        assert not errors, f"invalid stream events ({open_responses.SPEC}): {errors}"

    return check
