"""The serve API (starlette): ``/health``, Open Responses ``/v1/responses``, ``/shutdown``.

Turns are serial: a ``POST /v1/responses`` while a turn runs gets 409 ``turn_in_progress`` at
once (no queue, so a client never waits on an unknown bound; it retries or cancels). The turn
runs in its own thread, apart from the HTTP request: a client that disconnects mid-stream
does not stop it, and it is recorded all the same. Every error is an Open Responses error
object with the matching status.
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
from holon_core.serve.protocol import RequestError, error_body, parse_request
from holon_core.serve.turn import Session, Turn, execute, plan_turn

#: Largest request body accepted (bytes); larger gets 413.
MAX_BODY = 8 * 1024 * 1024
#: How long a cancel waits for the turn to end before answering with its current state.
CANCEL_WAIT = 60.0
TERMINAL = ("response.completed", "response.failed", "response.incomplete")


@dataclass
class ServeState:
    """The long-lived server's state: the loaded session and the one turn in flight."""

    session: Session
    socket: str
    started: float = field(default_factory=time.monotonic)
    busy: threading.Lock = field(default_factory=threading.Lock)
    current: Turn | None = None
    idle: threading.Event = field(default_factory=threading.Event)
    turns_served: int = 0
    draining: bool = False
    skills: list[str] = field(default_factory=list)
    #: Set by the server: ask uvicorn to stop (after the turn in flight ends).
    stop: Callable[[], None] = lambda: None

    def __post_init__(self) -> None:
        self.idle.set()

    def shutdown(self, *, cancel: bool) -> None:
        """Refuse new turns, optionally cancel the one in flight, exit once it has ended."""
        self.draining = True
        current = self.current
        if cancel and current is not None:
            current.cancel.set()

        def wait_then_stop() -> None:
            self.idle.wait()
            self.stop()

        threading.Thread(target=wait_then_stop, name="holon-serve-drain", daemon=True).start()


def build_app(state: ServeState) -> Starlette:
    async def health(request: Request) -> Response:
        session = state.session
        binary, version, _checks = session.preflight
        current = state.current
        return JSONResponse(
            {
                "status": "draining" if state.draining else "ok",
                "holon_version": __version__,
                "engine": {
                    "name": session.engine.name,
                    "version": version,
                    "binary": str(binary) if binary else None,
                },
                "capabilities": session.engine.capabilities.as_dict(),
                "skills": state.skills,
                "busy": current is not None,
                "current_response_id": current.response_id if current else None,
                "turns_served": state.turns_served,
                "uptime_seconds": round(time.monotonic() - state.started, 3),
                "workspace": "isolated" if session.isolate else "shared",
                "socket": state.socket,
                "state_dir": str(session.store.root),
            }
        )

    async def create(request: Request) -> Response:
        if state.draining:
            raise RequestError(503, "the server is shutting down", code="shutting_down")
        turn_request = parse_request(await _read_json(request))
        if not state.busy.acquire(blocking=False):
            current = state.current
            raise RequestError(
                409,
                "a turn is in progress"
                + (f" ({current.response_id})" if current else "")
                + "; turns are serial: retry when it ends, or cancel it",
                code="turn_in_progress",
            )
        try:
            turn = plan_turn(state.session, turn_request)
        except BaseException:
            state.busy.release()
            raise
        queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        _start(state, turn, _deliverer(queue))
        if turn_request.stream:
            return StreamingResponse(
                _sse(queue),
                media_type="text/event-stream",
                headers={"Cache-Control": "no-cache", "X-Holon-Response-Id": turn.response_id},
            )
        final: dict[str, Any] | None = None
        while (event := await queue.get()) is not None:
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
        current = state.current
        if current is None or current.response_id != response_id:
            if state.session.store.load(response_id) is None:
                raise _not_found(response_id)
            raise RequestError(
                409, f"response {response_id} is not in progress", code="not_in_progress"
            )
        current.cancel.set()
        await asyncio.to_thread(state.idle.wait, CANCEL_WAIT)
        record = state.session.store.load(response_id)
        assert record is not None  # saved when the turn started
        return JSONResponse(record["response"])

    async def shutdown(request: Request) -> Response:
        state.shutdown(cancel=False)
        return JSONResponse({"status": "shutting_down", "busy": state.current is not None}, 202)

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


def _start(state: ServeState, turn: Turn, deliver: Callable[[dict[str, Any] | None], None]) -> None:
    state.current = turn
    state.idle.clear()

    def work() -> None:
        try:
            execute(state.session, turn, deliver)
        except Exception:  # a bug: the turn's record may be partial; keep serving
            print(f"holon-agent serve: turn {turn.turn_id} failed:", file=_stderr())
            traceback.print_exc()
        finally:
            state.turns_served += 1
            state.current = None
            state.idle.set()
            state.busy.release()
            deliver(None)

    threading.Thread(target=work, name=f"holon-turn-{turn.turn_id}", daemon=True).start()


def _deliverer(
    queue: asyncio.Queue[dict[str, Any] | None],
) -> Callable[[dict[str, Any] | None], None]:
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
