"""The serve API (starlette): ``/health``, Open Responses ``/v1/responses``, ``/shutdown``.

Turns wait their turn (:mod:`holon_core.serve.queue`): a request is planned at once (its
errors are answered at once, its response id is fixed), then queued. Turns of one session
run in order, one at a time; ``--max-concurrent`` turns of different sessions may run side
by side (on isolated workspaces only); a full queue answers 429 with ``Retry-After``. A
queued turn is stored with status ``queued`` (``GET`` and ``cancel`` find it, a later
request may continue from it); a streaming client gets ``response.created`` (status
``queued``) and ``response.queued`` at once, and ``response.in_progress`` when it starts. A
client that disconnects while its turn waits takes it out of the queue: it never runs, and
its record says so (``client_disconnected``). Once started, a turn runs in its own thread,
apart from the HTTP request: a client that disconnects then does not stop it, and it is
recorded all the same. Every error is an Open Responses error object with the matching
status.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from holon_core._version import __version__
from holon_core.serve.dispatch import enqueue, shutting_down, start, withdraw
from holon_core.serve.errors import RequestError
from holon_core.serve.http_io import (
    http_error,
    not_found,
    read_json,
    request_error,
    server_error,
    sse,
)
from holon_core.serve.protocol import parse_request
from holon_core.serve.queue import TurnQueue
from holon_core.serve.turn_plan import Session, plan_turn
from holon_core.telemetry.setting import context_vars

#: How long a cancel waits for the turn to end before answering with its current state.
CANCEL_WAIT = 60.0
TERMINAL = ("response.completed", "response.failed", "response.incomplete")


@dataclass
class ServeState:
    """The long-lived server's state: the loaded session and the queue of turns."""

    session: Session
    socket: str
    max_concurrent: int = 1
    max_queued: int = 8
    started: float = field(default_factory=time.monotonic)
    draining: bool = False
    skills: list[str] = field(default_factory=list)
    #: Set by the server: ask uvicorn to stop (after the turns in flight end).
    stop: Callable[[], None] = lambda: None
    queue: TurnQueue = field(init=False)

    def __post_init__(self) -> None:
        self.queue = TurnQueue(
            lambda ticket: start(self, ticket),
            max_concurrent=self.max_concurrent,
            max_queued=self.max_queued,
        )

    @property
    def turns_served(self) -> int:
        return self.queue.turns_served

    def shutdown(self, *, cancel: bool) -> None:
        """Refuse new turns, then exit once the accepted ones have ended.

        ``cancel`` (a stop signal): the queued turns are taken out (recorded as cancelled,
        never run) and the running ones cancelled. Without (``POST /shutdown``): running and
        queued turns all finish first; they were accepted, and the queue is bounded.
        """
        self.draining = True

        def drain_then_stop() -> None:
            waiting = self.queue.close()
            if cancel:
                for ticket in waiting:
                    withdraw(self, ticket, "cancelled", "the server stopped before it ran")
                for ticket in self.queue.tickets()[0]:
                    ticket.payload.turn.cancel.set()
            self.queue.wait_idle(include_waiting=True)
            self.stop()

        threading.Thread(target=drain_then_stop, name="holon-serve-drain", daemon=True).start()


class _Handlers:
    """The routes' endpoints, over the server's state."""

    def __init__(self, state: ServeState) -> None:
        self.state = state

    async def health(self, request: Request) -> Response:
        return JSONResponse(_health(self.state))

    async def create(self, request: Request) -> Response:
        if self.state.draining:
            raise shutting_down()
        turn_request = parse_request(await read_json(request))
        turn = plan_turn(self.state.session, turn_request)
        headers = request.headers  # W3C trace context: the turn's span joins the client's trace
        turn.trace_env = context_vars(headers.get("traceparent"), headers.get("tracestate"))
        events: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        refused = enqueue(self.state, turn, events, request)
        if refused is not None:
            return refused
        if turn_request.stream:
            return StreamingResponse(
                sse(events),
                media_type="text/event-stream",
                headers={"Cache-Control": "no-cache", "X-Holon-Response-Id": turn.response_id},
            )
        final: dict[str, Any] | None = None
        while (event := await events.get()) is not None:
            if event["type"] in TERMINAL:
                final = event["response"]
        if final is None:
            raise RequestError(500, "the turn ended without a response; see the server's log")
        return JSONResponse(final)

    async def retrieve(self, request: Request) -> Response:
        record = self.state.session.store.load(request.path_params["response_id"])
        if record is None:
            raise not_found(request.path_params["response_id"])
        return JSONResponse(record["response"])

    async def cancel(self, request: Request) -> Response:
        response_id = request.path_params["response_id"]
        ticket = self.state.queue.find(response_id)
        if ticket is None:
            if self.state.session.store.load(response_id) is None:
                raise not_found(response_id)
            raise RequestError(
                409, f"response {response_id} is not in progress", code="not_in_progress"
            )
        if not withdraw(self.state, ticket, "cancelled", "cancelled while queued; it never ran"):
            ticket.payload.turn.cancel.set()
            await asyncio.to_thread(ticket.done.wait, CANCEL_WAIT)
        record = self.state.session.store.load(response_id)
        assert record is not None  # saved when the turn was accepted
        return JSONResponse(record["response"])

    async def shutdown(self, request: Request) -> Response:
        self.state.shutdown(cancel=False)
        running, queued = self.state.queue.tickets()
        body = {"status": "shutting_down", "busy": bool(running), "queued": len(queued)}
        return JSONResponse(body, 202)


def build_app(state: ServeState) -> Starlette:
    handlers = _Handlers(state)
    routes = [Route("/health", handlers.health, methods=["GET"])]
    for prefix in ("/v1", ""):
        routes += [
            Route(f"{prefix}/responses", handlers.create, methods=["POST"]),
            Route(f"{prefix}/responses/{{response_id}}", handlers.retrieve, methods=["GET"]),
            Route(f"{prefix}/responses/{{response_id}}/cancel", handlers.cancel, methods=["POST"]),
        ]
    routes.append(Route("/shutdown", handlers.shutdown, methods=["POST"]))
    return Starlette(
        routes=routes,
        exception_handlers={
            RequestError: request_error,  # type: ignore[dict-item]
            HTTPException: http_error,  # type: ignore[dict-item]
            Exception: server_error,
        },
    )


def _health(state: ServeState) -> dict[str, Any]:
    """Readiness, the engine, and the turns running and queued (oldest first)."""
    session = state.session
    binary, version, _checks = session.preflight
    running, queued = state.queue.tickets()
    return {
        "status": "draining" if state.draining else "ok",
        "holon_version": __version__,
        "engine": {
            "name": session.engine.name,
            "version": version,
            "binary": str(binary) if binary else None,
        },
        "capabilities": session.engine.capabilities.as_dict(),
        "skills": state.skills,
        "busy": bool(running),
        "current_response_id": running[0].response_id if running else None,
        "running": [ticket.describe() for ticket in running],
        "queued": [ticket.describe() for ticket in queued],
        "max_concurrent": state.queue.max_concurrent,
        "max_queued": state.queue.max_queued,
        "turns_served": state.turns_served,
        "uptime_seconds": round(time.monotonic() - state.started, 3),
        "workspace": "isolated" if session.isolate else "shared",
        "socket": state.socket,
        "state_dir": str(session.store.root),
    }
