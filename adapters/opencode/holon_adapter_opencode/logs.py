"""OpenCode's own log lines (``--print-logs`` puts them on stderr): where its retries show.

OpenCode 1.18 retries a failed model call (5xx, 429, overloaded) up to five times with
exponential backoff (2 s, 4 s, 8 s, 16 s, 32 s) and prints nothing on stdout meanwhile; no
setting or variable changes that count. Each failed attempt logs one ``stream error`` line,
so holon counts them here and stops the run itself after ``HOLON_OPENCODE_MAX_RETRIES``.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping

RETRIES_ENV = "HOLON_OPENCODE_MAX_RETRIES"
#: Retries holon lets OpenCode make before it stops the run (the engine's own cap is 5).
DEFAULT_MAX_RETRIES = 3
#: At least one: a 401 logs one stream error before its ``error`` event names the status.
MIN_RETRIES, MAX_RETRIES = 1, 5
_RATE_LIMITED = re.compile(r"429|rate.?limit|too many requests", re.IGNORECASE)
_STREAM_ERROR = 'message="stream error"'


def max_retries(env: Mapping[str, str]) -> int:
    """``HOLON_OPENCODE_MAX_RETRIES`` clamped to 1..5, else 3."""
    raw = env.get(RETRIES_ENV, "").strip()
    if not raw.isdigit():
        return DEFAULT_MAX_RETRIES
    return max(MIN_RETRIES, min(int(raw), MAX_RETRIES))


@dataclass(frozen=True, slots=True)
class StreamError:
    """One failed model call of the working agent (the title agent's are ignored)."""

    message: str

    @property
    def reason(self) -> str:
        return "rate_limited" if _RATE_LIMITED.search(self.message) else "engine_error"


def fields(line: str) -> dict[str, str]:
    """``key=value`` pairs of one log line (values may be double-quoted)."""
    try:
        words = shlex.split(line, posix=True)
    except ValueError:
        return {}
    return dict(word.split("=", 1) for word in words if "=" in word)


def stream_error(line: str) -> StreamError | None:
    """The failed model call this log line reports, if it is one."""
    if _STREAM_ERROR not in line:
        return None
    found = fields(line)
    if found.get("agent") == "title" or found.get("small") == "true":
        return None
    return StreamError(found.get("error.error", "model call failed"))
