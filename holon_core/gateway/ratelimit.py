"""When a rate limit or quota resets, as the API announced it on a 429/503/529 answer.

Read from ``retry-after`` (seconds or an HTTP date) and every ``*ratelimit*reset*`` header:
Anthropic's ``anthropic-ratelimit-*-reset`` (RFC 3339 times), OpenAI's
``x-ratelimit-reset-requests``/``-tokens`` (durations like ``6m0s``, ``20ms``). The latest
announced time counts: the call cannot succeed before every limit it hit has reset.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime

#: Statuses that announce "wait": too many requests, overloaded (Anthropic), unavailable.
LIMIT_STATUSES = frozenset({429, 503, 529})
_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")
_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}


def reset_at(headers: Iterable[tuple[str, str]], now: datetime) -> datetime | None:
    """The latest reset time the headers announce, or None when they announce none."""
    found = []
    for name, value in headers:
        lower = name.lower()
        if lower == "retry-after" or ("ratelimit" in lower and "reset" in lower):
            when = _parse(value.strip(), now)
            if when is not None:
                found.append(when)
    return max(found) if found else None


def _parse(value: str, now: datetime) -> datetime | None:
    try:
        return now + timedelta(seconds=float(value))
    except ValueError:
        pass
    whole = "".join(m.group(0) for m in _DURATION.finditer(value))
    if whole and whole == value:
        seconds = sum(float(n) * _UNITS[unit] for n, unit in _DURATION.findall(value))
        return now + timedelta(seconds=seconds)
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        try:
            parsed = parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def iso(when: datetime) -> str:
    """To the second, rounded up: a reset recorded is never earlier than the one announced
    (``holon batch`` waits until it)."""
    if when.microsecond:
        when = when.replace(microsecond=0) + timedelta(seconds=1)
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
