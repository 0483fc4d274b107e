"""A planned turn into the queue and, when its time comes, onto a thread of its own.

The queue (:mod:`holon_core.serve.queue`) decides when; this module does the rest: stores the
turn's first record, announces a queued turn to a streaming client (``response.created``,
``response.queued``), takes a waiting turn out when its client disconnects or the server
stops (recorded, never run), and runs a started turn apart from its HTTP request.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from holon_core.serve.errors import RequestError, error_body
from holon_core.serve.queue import QueueClosed, QueueFull, Ticket, WorkspaceUse
from holon_core.serve.stream import TurnStream
from holon_core.serve.turn import execute, save_unrun
from holon_core.serve.turn_plan import Turn, decide_continuation

if TYPE_CHECKING:
    from holon_core.serve.app import ServeState

Deliver = Callable[[dict[str, Any] | None], None]


@dataclass(eq=False)
class Waiter:
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


def enqueue(
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
    waiter = Waiter(turn, events, _deliverer(events))
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
            raise shutting_down() from None
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


def _announce_queued(state: ServeState, waiter: Waiter) -> None:
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
            withdraw(
                state,
                ticket,
                "client_disconnected",
                "the client disconnected while the request was queued; it never ran",
            )
            return


def withdraw(state: ServeState, ticket: Ticket, code: str, message: str) -> bool:
    """Take a waiting turn out of the queue, record why, end its stream; False if it runs."""
    if not state.queue.withdraw(ticket, code):
        return False
    waiter: Waiter = ticket.payload
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


def start(state: ServeState, ticket: Ticket) -> None:
    """Run a ticket's turn in its own thread (called by the queue when it may run)."""
    waiter: Waiter = ticket.payload
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
            print(f"holon-agent serve: turn {turn.turn_id} failed:", file=sys.stderr)
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


def shutting_down() -> RequestError:
    return RequestError(503, "the server is shutting down", code="shutting_down")


def _deliverer(queue: asyncio.Queue[dict[str, Any] | None]) -> Deliver:
    """Hand events to the request's coroutine, from any thread."""
    loop = asyncio.get_running_loop()

    def deliver(event: dict[str, Any] | None) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is gone: nobody listens any more
            loop.call_soon_threadsafe(queue.put_nowait, event)

    return deliver
