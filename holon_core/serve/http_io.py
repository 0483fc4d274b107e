"""The HTTP edges of the serve API: reading a bounded JSON body, server-sent events, and
every error as an Open Responses error object with the matching status."""

from __future__ import annotations

import asyncio
import json
import sys
import traceback
from collections.abc import AsyncIterator
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from holon_core.serve.errors import RequestError, error_body

#: Largest request body accepted (bytes); larger gets 413.
MAX_BODY = 8 * 1024 * 1024


async def sse(queue: asyncio.Queue[dict[str, Any] | None]) -> AsyncIterator[bytes]:
    """Server-sent events: ``event:`` is the body's ``type``; ``[DONE]`` ends the stream."""
    while (event := await queue.get()) is not None:
        data = json.dumps(event, ensure_ascii=False)
        yield f"event: {event['type']}\ndata: {data}\n\n".encode()
    yield b"data: [DONE]\n\n"


async def read_json(request: Request) -> object:
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


def not_found(response_id: str) -> RequestError:
    return RequestError(
        404,
        f"no response {response_id[:80]!r} is stored here",
        param="response_id",
        code="response_not_found",
    )


async def request_error(request: Request, exc: RequestError) -> Response:
    return JSONResponse(exc.body(), status_code=exc.status)


async def http_error(request: Request, exc: HTTPException) -> Response:
    kind = "not_found" if exc.status_code == 404 else "invalid_request"
    message = f"{request.method} {request.url.path}: {exc.detail}"
    return JSONResponse(error_body(message, kind), status_code=exc.status_code)


async def server_error(request: Request, exc: Exception) -> Response:
    traceback.print_exception(exc, file=sys.stderr)
    return JSONResponse(error_body(f"internal error: {exc!r}", "server_error"), status_code=500)
