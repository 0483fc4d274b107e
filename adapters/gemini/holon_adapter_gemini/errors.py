"""Decode Gemini CLI failures into holon reason codes.

In stream-json mode the CLI ends an API failure with ``process.exit(error.status)``, so the
exit code is the HTTP status modulo 256 (400 -> 144, 401 -> 145, 429 -> 173, 500 -> 244).
Its own fatal errors use small fixed codes (41 auth config, 53 turn limit, ...). The result
event's error message usually embeds the API error body; we prefer that status when present
and fall back to the exit code.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

#: The CLI's FatalError subclasses (packages/core utils/errors).
FATAL_EXITS: dict[int, tuple[str, str]] = {
    41: ("auth_failed", "Gemini CLI has no usable authentication method"),
    42: ("engine_error", "Gemini CLI rejected its input"),
    44: ("engine_error", "Gemini CLI sandbox failed"),
    52: ("engine_error", "Gemini CLI configuration is invalid"),
    53: ("max_steps", "Gemini CLI reached the maximum number of turns"),
    54: ("tool_failed", "a Gemini CLI tool failed fatally"),
    55: ("engine_error", "Gemini CLI refused to run in an untrusted folder"),
    130: ("cancelled", "Gemini CLI was cancelled"),
}
#: Error ``type`` values in the result event that name the same fatal errors.
FATAL_TYPES: dict[str, int] = {
    "FatalAuthenticationError": 41,
    "FatalInputError": 42,
    "FatalSandboxError": 44,
    "FatalConfigError": 52,
    "FatalTurnLimitedError": 53,
    "FatalToolExecutionError": 54,
    "FatalCancellationError": 130,
}
_HTTP_STATUSES = (400, 401, 403, 404, 408, 409, 413, 429, 500, 502, 503, 504)
#: Exit code -> HTTP status, for the statuses an API can plausibly return.
EXIT_TO_HTTP: dict[int, int] = {status & 0xFF: status for status in _HTTP_STATUSES}
_CODE_IN_TEXT = re.compile(r'"code"\s*:\s*(\d{3})')


@dataclass(frozen=True, slots=True)
class Decoded:
    reason: str
    sentence: str
    http_status: int | None = None


def http_reason(status: int) -> str:
    if status in (401, 403):
        return "auth_failed"
    if status == 429:
        return "rate_limited"
    return "engine_error"


def _http_sentence(status: int, detail: str) -> str:
    lead = {
        401: "the Gemini API rejected the API key (HTTP 401)",
        403: "the Gemini API refused access (HTTP 403)",
        429: "the Gemini API rate limit or quota was hit (HTTP 429)",
        400: "the Gemini API rejected the request (HTTP 400)",
        404: "the Gemini API does not know the model or endpoint (HTTP 404)",
    }.get(status, f"the Gemini API failed with HTTP {status}")
    text = f"{lead}: {detail}" if detail else lead
    return text[0].upper() + text[1:]


def api_message(message: str) -> tuple[int | None, str]:
    """The HTTP status and human message inside ``[API Error: {...}]`` text, when present."""
    first = message.strip().split("\n", 1)[0].strip()
    if first.startswith("[API Error:"):
        first = first[len("[API Error:") :].strip().removesuffix("]").strip()
    try:
        parsed = json.loads(first)
    except ValueError:
        parsed = None
    if isinstance(parsed, dict) and isinstance(parsed.get("error"), dict):
        error = parsed["error"]
        code = error.get("code")
        detail = str(error.get("message") or "").strip()
        return (code if isinstance(code, int) else None), detail
    match = _CODE_IN_TEXT.search(message)
    return (int(match.group(1)) if match else None), first


def decode(exit_code: int | None, error_type: str | None, message: str) -> Decoded:
    """Reason and sentence for a failed run from the exit code, error type and message."""
    fatal = FATAL_TYPES.get(error_type or "")
    if fatal is None and exit_code in FATAL_EXITS:
        fatal = exit_code
    if fatal is not None:
        reason, lead = FATAL_EXITS[fatal]
        return Decoded(reason, f"{lead}: {message}" if message else lead)
    status, detail = api_message(message) if message else (None, "")
    if status is None and exit_code is not None:
        status = EXIT_TO_HTTP.get(exit_code)
    if status is not None:
        return Decoded(http_reason(status), _http_sentence(status, detail), status)
    detail = detail or message
    if exit_code not in (None, 0):
        suffix = f": {detail}" if detail else ""
        return Decoded("engine_error", f"Gemini CLI failed with exit code {exit_code}{suffix}")
    return Decoded("engine_error", f"Gemini CLI reported an error: {detail or 'no details'}")
