"""Codex error messages to holon reason codes.

Codex reports API failures only as prose (``turn.failed.error.message`` and top-level
``error`` events), e.g. ``unexpected status 401 Unauthorized: ...`` or ``Reconnecting...
waiting for network (Connection failed: ...)``, so the mapping is by pattern.
"""

from __future__ import annotations

import re

_AUTH = re.compile(
    r"\b(401|403)\b|unauthori[sz]ed|forbidden|invalid[_ ]api[_ ]key|incorrect api key", re.I
)
_RATE = re.compile(r"\b429\b|too many requests|rate.?limit|usage limit|quota", re.I)
_RETRY = re.compile(r"^Reconnecting\.\.\.", re.I)
_NETWORK = re.compile(r"waiting for network", re.I)


def reason_for(message: str) -> str:
    """``auth_failed``, ``rate_limited`` or ``engine_error`` for a fatal Codex error."""
    if _AUTH.search(message):
        return "auth_failed"
    if _RATE.search(message):
        return "rate_limited"
    return "engine_error"


def is_retry_notice(message: str) -> bool:
    return bool(_RETRY.match(message.strip()))


def is_network_wait(message: str) -> bool:
    """Codex's endless wait on an unreachable endpoint (its retry caps do not apply)."""
    return is_retry_notice(message) and bool(_NETWORK.search(message))
