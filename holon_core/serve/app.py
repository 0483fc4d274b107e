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
import contextlib
import json
import threading
import time
import traceback
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from holon_core._version import __version__
from holon_core.serve.errors import RequestError, error_body
from holon_core.serve.protocol import parse_request
from holon_core.serve.queue import QueueClosed, QueueFull, Ticket, TurnQueue, WorkspaceUse
from holon_core.serve.stream import TurnStream
from holon_core.serve.turn import (
    Session,
    Turn,
    decide_continuation,
    execute,
    plan_turn,
    save_unrun,
)

#: Largest request body accepted (bytes); larger gets 413.
MAX_BODY = 8 * 1024 * 1024
#: How long a cancel waits for the turn to end before answering with its current state.
CANCEL_WAIT = 60.0
TERMINAL = ("response.completed", "response.failed", "response.incomplete")
Deliver = Callable[[dict[str, Any] | None], None]


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
            lambda ticket: _start(self, ticket),
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
                    _withdraw(self, ticket, "cancelled", "the server stopped before it ran")
                for ticket in self.queue.tickets()[0]:
                    ticket.payload.turn.cancel.set()
            self.queue.wait_idle(include_waiting=True)
            self.stop()

        threading.Thread(target=drain_then_stop, name="holon-serve-drain", daemon=True).start()


@dataclass(eq=False)
class _Waiter:
    """A ticket's side of the HTTP request: the planned turn and where its events go."""

    turn: Turn
    events: asyncio.Queue[dict[str, Any] | None]
    deliver: Deliver
    #: Set once the request handler has stored the turn's first record (the turn waits).
    ready: threading.Event = field(default_factory=threading.Event)
    #: Its previous turn had not ended when it was planned: decide continuation at start.
    decide_at_start: bool = False
    #: The stream of a queued turn's prelude (and its end, when taken out of the queue).
    stream: TurnStream | None = None
    watcher: asyncio.Task[None] | None = None


def build_app(state: ServeState) -> Starlette:
    async def health(request: Request) -> Response:
        return JSONResponse(_health(state))

    async def create(request: Request) -> Response:
        if state.draining:
            raise _shutting_down()
        turn_request = parse_request(await _read_json(request))
        turn = plan_turn(state.session, turn_request)
        events: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        refused = _enqueue(state, turn, events, request)
        if refused is not None:
            return refused
        if turn_request.stream:
            return StreamingResponse(
                _sse(events),
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

    async def retrieve(request: Request) -> Response:
        record = state.session.store.load(request.path_params["response_id"])
        if record is None:
            raise _not_found(request.path_params["response_id"])
        return JSONResponse(record["response"])

    async def cancel(request: Request) -> Response:
        response_id = request.path_params["response_id"]
        ticket = state.queue.find(response_id)
        if ticket is None:
            if state.session.store.load(response_id) is None:
                raise _not_found(response_id)
            raise RequestError(
                409, f"response {response_id} is not in progress", code="not_in_progress"
            )
        if not _withdraw(state, ticket, "cancelled", "cancelled while queued; it never ran"):
            ticket.payload.turn.cancel.set()
            await asyncio.to_thread(ticket.done.wait, CANCEL_WAIT)
        record = state.session.store.load(response_id)
        assert record is not None  # saved when the turn was accepted
        return JSONResponse(record["response"])

    async def shutdown(request: Request) -> Response:
        state.shutdown(cancel=False)
        running, queued = state.queue.tickets()
        body = {"status": "shutting_down", "busy": bool(running), "queued": len(queued)}
        return JSONResponse(body, 202)

    routes = [Route("/health", health, methods=["GET"])]
    for prefix in ("/v1", ""):
        routes += [
            Route(f"{prefix}/responses", create, methods=["POST"]),
            Route(f"{prefix}/responses/{{response_id}}", retrieve, methods=["GET"]),
            Route(f"{prefix}/responses/{{response_id}}/cancel", cancel, methods=["POST"]),
        ]
    routes.append(Route("/shutdown", shutdown, methods=["POST"]))
    return Starlette(
        routes=routes,
        exception_handlers={
            RequestError: _request_error,  # type: ignore[dict-item]
            HTTPException: _http_error,  # type: ignore[dict-item]
            Exception: _server_error,
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


def _enqueue(
    state: ServeState,
    turn: Turn,
    events: asyncio.Queue[dict[str, Any] | None],
    request: Request,
) -> Response | None:
    """Queue the planned turn (it may start at once); a 429 response when the queue is full.

    No await from the submit to ``ready``: no other request interleaves, and the turn's
    thread waits for ``ready`` before it runs, so its first record is stored by then.
    """
    _check_unclaimed(state, turn)
    previous = turn.request.previous_response_id
    waiter = _Waiter(turn, events, _deliverer(events))
    waiter.decide_at_start = previous is not None and state.queue.find(previous) is not None
    ticket = Ticket(
        turn.response_id, turn.session_id, turn.turn_id, _workspace_use(state, turn), waiter
    )
    try:
        try:
            started = state.queue.submit(ticket)
        except QueueFull as full:
            return _queue_full(full)
        except QueueClosed:
            raise _shutting_down() from None
        if started:
            save_unrun(state.session, turn, "in_progress")
        else:
            _announce_queued(state, waiter)
            waiter.watcher = asyncio.create_task(_drop_if_gone(state, ticket, request))
    finally:
        waiter.ready.set()
    return None


def _check_unclaimed(state: ServeState, turn: Turn) -> None:
    """Two accepted turns never share an output dir (plan_turn sees only finished ones)."""
    running, queued = state.queue.tickets()
    if any(t.payload.turn.output_dir == turn.output_dir for t in (*running, *queued)):
        raise RequestError(
            409,
            f"the turn's output dir {turn.output_dir} belongs to a turn queued or running; "
            "pick a new holon.turn_id",
            param="holon.turn_id",
            code="turn_exists",
        )


def _workspace_use(state: ServeState, turn: Turn) -> WorkspaceUse:
    """How the turn touches the mounted workspace: edits it, copies it, or neither."""
    if not turn.isolated:
        return "write"
    source = turn.workspace_source
    shared = state.session.paths.workspace
    return "read" if source is None or source.resolve() == shared.resolve() else "none"


def _announce_queued(state: ServeState, waiter: _Waiter) -> None:
    """Store the queued response and send ``response.created`` + ``response.queued``."""
    response = save_unrun(state.session, waiter.turn, "queued")
    redact = state.session.redact

    def keep(event: dict[str, Any]) -> None:
        line = json.dumps(event, ensure_ascii=False)  # redacted as the turn's own events are
        clean = redact(line)
        event = event if clean == line else json.loads(clean)
        waiter.turn.prelude.append(event)  # events.ndjson starts with what was sent
        waiter.deliver(event)

    stream = TurnStream(keep, redact)
    stream.lifecycle("created", response)
    stream.emit({"type": "response.queued", "response": response})
    waiter.stream = stream


async def _drop_if_gone(state: ServeState, ticket: Ticket, request: Request) -> None:
    """While the ticket waits, watch its connection: a client gone takes it out."""
    while ticket.state == "queued":
        message = await request.receive()
        if message["type"] == "http.disconnect":
            _withdraw(
                state,
                ticket,
                "client_disconnected",
                "the client disconnected while the request was queued; it never ran",
            )
            return


def _withdraw(state: ServeState, ticket: Ticket, code: str, message: str) -> bool:
    """Take a waiting turn out of the queue, record why, end its stream; False if it runs."""
    if not state.queue.withdraw(ticket, code):
        return False
    waiter: _Waiter = ticket.payload
    waiter.ready.wait()  # the handler that queued it has stored its first record
    response = save_unrun(
        state.session,
        waiter.turn,
        "failed",
        completed_at=int(time.time()),
        error={"code": code, "message": message},
        holon={"outcome": "failure", "reason": "cancelled", "ran": False},
    )
    assert waiter.stream is not None  # every queued turn announced itself
    waiter.stream.error(code, message)
    waiter.stream.lifecycle("failed", response)
    waiter.deliver(None)
    return True


def _start(state: ServeState, ticket: Ticket) -> None:
    """Run a ticket's turn in its own thread (called by the queue when it may run)."""
    waiter: _Waiter = ticket.payload
    turn = waiter.turn

    def work() -> None:
        try:
            waiter.ready.wait()
            if waiter.watcher is not None:  # no longer waiting: a client gone is no matter
                with contextlib.suppress(RuntimeError):  # (the loop has closed)
                    waiter.watcher.get_loop().call_soon_threadsafe(waiter.watcher.cancel)
            if waiter.decide_at_start:
                previous = state.session.store.load(turn.request.previous_response_id or "")
                if previous is not None:
                    decide_continuation(state.session, turn, previous)
            execute(state.session, turn, waiter.deliver)
        except Exception:  # a bug: the turn's record may be partial; keep serving
            print(f"holon-agent serve: turn {turn.turn_id} failed:", file=_stderr())
            traceback.print_exc()
        finally:
            state.queue.finish(ticket)
            waiter.deliver(None)

    threading.Thread(target=work, name=f"holon-turn-{turn.turn_id}", daemon=True).start()


def _queue_full(full: QueueFull) -> Response:
    message = (
        f"the queue is full ({full.queued} turns waiting); retry after {full.retry_after} s "
        "(header Retry-After), or start the server with a larger --max-queued"
    )
    body = error_body(message, "too_many_requests", code="queue_full")
    return JSONResponse(body, status_code=429, headers={"Retry-After": str(full.retry_after)})


def _shutting_down() -> RequestError:
    return RequestError(503, "the server is shutting down", code="shutting_down")


def _deliverer(queue: asyncio.Queue[dict[str, Any] | None]) -> Deliver:
    """Hand events to the request's coroutine, from any thread."""
    loop = asyncio.get_running_loop()

    def deliver(event: dict[str, Any] | None) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is gone: nobody listens any more
            loop.call_soon_threadsafe(queue.put_nowait, event)

    return deliver


async def _sse(queue: asyncio.Queue[dict[str, Any] | None]) -> AsyncIterator[bytes]:
    """Server-sent events: ``event:`` is the body's ``type``; ``[DONE]`` ends the stream."""
    while (event := await queue.get()) is not None:
        data = json.dumps(event, ensure_ascii=False)
        yield f"event: {event['type']}\ndata: {data}\n\n".encode()
    yield b"data: [DONE]\n\n"


async def _read_json(request: Request) -> object:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > MAX_BODY:
        raise _too_large()
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise _too_large()
    try:
        return json.loads(body)
    except (ValueError, RecursionError) as exc:
        raise RequestError(
            400, f"the body is not valid JSON ({exc}); send a JSON object", code="invalid_json"
        ) from None


def _too_large() -> RequestError:
    return RequestError(413, f"the request body is over {MAX_BODY} bytes", code="body_too_large")


def _not_found(response_id: str) -> RequestError:
    return RequestError(
        404,
        f"no response {response_id[:80]!r} is stored here",
        param="response_id",
        code="response_not_found",
    )


async def _request_error(request: Request, exc: RequestError) -> Response:
    return JSONResponse(exc.body(), status_code=exc.status)


async def _http_error(request: Request, exc: HTTPException) -> Response:
    kind = "not_found" if exc.status_code == 404 else "invalid_request"
    message = f"{request.method} {request.url.path}: {exc.detail}"
    return JSONResponse(error_body(message, kind), status_code=exc.status_code)


async def _server_error(request: Request, exc: Exception) -> Response:
    traceback.print_exception(exc, file=_stderr())
    return JSONResponse(error_body(f"internal error: {exc!r}", "server_error"), status_code=500)


def _stderr() -> Any:
    import sys

    return sys.stderr
