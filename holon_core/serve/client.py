"""A small client for ``holon-agent serve`` (httpx over the Unix socket), for applications.

Example::

    with ServeClient("/holon/ipc/agent.sock") as client:
        first = client.create("Add a test for parse()")
        for event in client.stream("Now make it pass", previous_response_id=first["id"]):
            if event["type"] == "response.output_text.delta":
                print(event["delta"], end="")

:func:`start_server` starts a serve process and waits until it answers ``/health``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

import httpx

#: How long to wait for a starting server to answer /health.
START_TIMEOUT = 30.0


class ServeClientError(Exception):
    """The server answered with an Open Responses error object; ``retry_after``: the seconds
    a full queue (429) asks to wait, from its ``Retry-After`` header."""

    def __init__(
        self, status: int, error: dict[str, Any], *, retry_after: int | None = None
    ) -> None:
        super().__init__(f"HTTP {status}: {error.get('message', error)}")
        self.status = status
        self.error = error
        self.retry_after = retry_after


class ServeClient:
    def __init__(self, socket: str | Path, *, timeout: float = 10.0) -> None:
        self.socket = Path(socket)
        self._http = httpx.Client(
            transport=httpx.HTTPTransport(uds=str(socket)),
            base_url="http://holon-agent",
            # a turn may run for an hour: only connecting and writing are bounded
            timeout=httpx.Timeout(timeout, read=None),
        )

    def __enter__(self) -> ServeClient:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def health(self) -> dict[str, Any]:
        return self._json(self._http.get("/health"))

    def create(self, input: str | list[dict[str, Any]], **fields: Any) -> dict[str, Any]:
        """One turn, waiting for its final response object."""
        return self._json(self._http.post("/v1/responses", json=_body(input, fields, False)))

    def stream(self, input: str | list[dict[str, Any]], **fields: Any) -> Iterator[dict[str, Any]]:
        """One turn, yielding its Open Responses events as they arrive."""
        body = _body(input, fields, True)
        with self._http.stream("POST", "/v1/responses", json=body) as response:
            if response.status_code != 200:
                response.read()
                self._json(response)
            yield from parse_sse(response.iter_lines())

    def get(self, response_id: str) -> dict[str, Any]:
        return self._json(self._http.get(f"/v1/responses/{response_id}"))

    def cancel(self, response_id: str) -> dict[str, Any]:
        return self._json(self._http.post(f"/v1/responses/{response_id}/cancel"))

    def shutdown(self) -> dict[str, Any]:
        return self._json(self._http.post("/shutdown"))

    @staticmethod
    def _json(response: httpx.Response) -> dict[str, Any]:
        data = response.json()
        if response.status_code >= 400:
            wait = response.headers.get("retry-after", "")
            raise ServeClientError(
                response.status_code,
                data.get("error", data),
                retry_after=int(wait) if wait.isdigit() else None,
            )
        if not isinstance(data, dict):
            raise ServeClientError(response.status_code, {"message": "not a JSON object"})
        return data


def _body(input: str | list[dict[str, Any]], fields: Mapping[str, Any], stream: bool) -> Any:
    return {"input": input, **{k: v for k, v in fields.items() if v is not None}, "stream": stream}


def parse_sse(lines: Iterator[str]) -> Iterator[dict[str, Any]]:
    """Events of a server-sent-event stream (``data:`` JSON), until ``[DONE]``."""
    data: list[str] = []
    for line in lines:
        if line.startswith("data:"):
            data.append(line[5:].strip())
        elif not line and data:
            payload = "\n".join(data)
            data = []
            if payload == "[DONE]":
                return
            yield json.loads(payload)


def serve_command(socket: Path, args: Sequence[str] = ()) -> list[str]:
    """The argv that starts ``holon-agent serve`` with this Python."""
    return [sys.executable, "-m", "holon_core.agent", "serve", "--socket", str(socket), *args]


def start_server(
    socket: Path,
    args: Sequence[str] = (),
    *,
    env: Mapping[str, str] | None = None,
    stderr: Any = None,
    timeout: float = START_TIMEOUT,
) -> subprocess.Popen[bytes]:
    """Start ``holon-agent serve`` and return once it answers; RuntimeError if it cannot."""
    process = subprocess.Popen(
        serve_command(socket, args),
        env=dict(env) if env is not None else None,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,  # a detached server must not hold its starter's stdout
        stderr=stderr if stderr is not None else subprocess.PIPE,
        start_new_session=True,
    )
    try:
        wait_ready(socket, process, timeout)
    except BaseException:
        if process.poll() is None:
            process.kill()
            process.wait()
        raise
    return process


def wait_ready(socket: Path, process: subprocess.Popen[bytes], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            err = process.stderr.read().decode(errors="replace") if process.stderr else ""
            raise RuntimeError(f"holon-agent serve exited {process.returncode}: {err.strip()}")
        if socket.exists():
            try:
                with ServeClient(socket, timeout=2.0) as client:
                    client.health()
                return
            except (httpx.HTTPError, ServeClientError):
                pass
        time.sleep(0.02)
    raise RuntimeError(f"holon-agent serve did not answer on {socket} within {timeout:.0f} s")
