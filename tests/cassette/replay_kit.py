"""What the replay tests share: recording a run through the gateway, replaying it with no
key and the upstream stopped, and a listener that counts connections (to prove none)."""

from __future__ import annotations

import socket
import threading
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from holon_core.testing import AgentResult, make_task, run_agent
from tests.gateway.test_gateway_engines import ENGINES, engine_env

GOAL = "Create hello.txt"


@dataclass(frozen=True)
class Recording:
    """A write-and-run recorded through the gateway (the ``recording`` fixture)."""

    cassette: Path  #: shared by the tests: copy it before changing it
    result: AgentResult  #: the recording run's own record
    requests: list[Any]  #: what the upstream got, in order


def record(
    engine: str,
    server: Any,
    ca_file: Path,
    where: Path,
    target: Path,
    *,
    args: tuple[str, ...] = (),
) -> Any:
    task = make_task(where / "task", goal=GOAL, files={"README.md": "hi\n"})
    env = engine_env(server, engine, ca_file)
    argv = ["--record", str(target), *args]
    return run_agent(task, engine, env=env, args=argv, timeout=240)


def write_skill(root: Path, description: str) -> Path:
    """A skill dir whose description (what every engine lists in its prompt) is given."""
    skill = root / "house-style"
    skill.mkdir(parents=True, exist_ok=True)
    (skill / "SKILL.md").write_text(
        f"---\nname: house-style\ndescription: {description}\n---\n\nWrite plain files.\n"
    )
    return skill


def replay_env(engine: str, upstream: str) -> dict[str, str]:
    """The engine pointed at ``upstream`` (where nothing may arrive), no key variable set."""
    from holon_conformance.provider.apis import installed_adapters

    adapter = installed_adapters().get_engine(engine)
    endpoint = adapter.endpoint_env(upstream)
    env = {k: v for k, v in endpoint.items() if k not in adapter.credential_env}
    model, extra = ENGINES[engine]
    return env | extra | {"HOLON_MODEL": model, "HOLON_GATEWAY": "on"}


def replay(
    engine: str,
    cassette: Path,
    where: Path,
    upstream: str,
    *,
    goal: str = GOAL,
    args: tuple[str, ...] = (),
    files: dict[str, str | bytes] | None = None,
) -> Any:
    task = make_task(where / "task", goal=goal, files=files or {"README.md": "hi\n"})
    env = replay_env(engine, upstream)
    return run_agent(task, engine, env=env, args=["--cassette", str(cassette), *args], timeout=240)


class ConnectionCounter:
    """A TCP listener on 127.0.0.1 that accepts and counts connections, then closes them."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.connections = 0
        self._thread = threading.Thread(target=self._accept, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}"

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            conn.close()

    def __enter__(self) -> ConnectionCounter:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.sock.close()
