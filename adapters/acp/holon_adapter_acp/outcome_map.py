"""What an ACP turn's end means for holon's outcome: stop reasons and JSON-RPC errors.

``stopReason`` is never trusted alone (``parser.py`` adds the guards): an agent that hit a
model error may still answer ``end_turn``.
"""

from __future__ import annotations

import re

#: stopReason -> (reason code, sentence); ``end_turn`` is absent: it is the success path.
STOP_REASONS: dict[str, tuple[str, str]] = {
    "max_tokens": (
        "engine_error",
        "the model reached its output token limit (stopReason max_tokens)",
    ),
    "max_turn_requests": (
        "max_steps",
        "the agent reached its maximum number of model requests (stopReason max_turn_requests)",
    ),
    "refusal": ("reported_failure", "the agent refused to continue (stopReason refusal)"),
    "cancelled": ("cancelled", "the agent cancelled the turn (stopReason cancelled)"),
}
#: JSON-RPC codes ACP gives a meaning; agents put HTTP statuses in ``code`` too (gemini --acp).
AUTH_REQUIRED = -32000
#: What agents that wrap an API error in -32603 say about it (OpenCode names no status).
_AUTH = re.compile(
    r"\b40[13]\b|unauthori[sz]ed|authenticat|invalid.{0,12}api.?key|x-api-key|permission denied",
    re.IGNORECASE,
)
_RATE = re.compile(r"\b429\b|rate.?limit|quota|too many requests", re.IGNORECASE)
METHOD_NOT_FOUND = -32601


def error_reason(code: object, message: str) -> str:
    """The reason code for a JSON-RPC error answering one of the client's requests."""
    if code == AUTH_REQUIRED or code in (401, 403):
        return "auth_failed"
    if code == 429:
        return "rate_limited"
    if _AUTH.search(message):
        return "auth_failed"
    if _RATE.search(message):
        return "rate_limited"
    return "engine_error"


def error_sentence(stage: str, code: object, message: str, unanswerable: list[str]) -> str:
    text = f"the ACP agent answered {stage} with an error"
    text += f" (code {code})" if code is not None else ""
    text += f": {message}" if message else ""
    if unanswerable:
        text += f"; it had asked for {', '.join(unanswerable)}, which holon's client does not serve"
    return text
