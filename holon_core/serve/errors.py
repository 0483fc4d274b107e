"""Open Responses error objects, and the error a request the server refuses raises.

Its own module so the request's parts (``input_items``, ``attachments``, ``budget``) and the
request reader (``protocol``) all raise it without importing one another in a circle.
"""

from __future__ import annotations

from typing import Any


class RequestError(Exception):
    """A request the server refuses, with its HTTP status and Open Responses error fields."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        param: str | None = None,
        code: str | None = None,
        kind: str | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.param = param
        self.code = code
        self.kind = kind or _KINDS.get(status, "invalid_request")

    def body(self) -> dict[str, Any]:
        return error_body(self.message, self.kind, param=self.param, code=self.code)


_KINDS = {404: "not_found", 429: "too_many_requests", 500: "server_error"}


def error_body(
    message: str, kind: str, *, param: str | None = None, code: str | None = None
) -> dict[str, Any]:
    """The Open Responses error object: ``{"error": {message, type, param, code}}``."""
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}
