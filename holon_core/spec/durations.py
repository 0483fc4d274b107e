"""Durations as the contract writes them: ``90s``/``10m``/``1h`` in specs, ``12.5s`` in manifests.

Kept apart from the pydantic models so the agent can format a duration without building them.
"""

from __future__ import annotations

import re

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$")
_HOW = "write it like 90s, 10m or 1h"
_UNIT_SECONDS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, None: 1.0}


def parse_duration(text: str | float) -> float:
    """Seconds from ``90s``, ``10m``, ``1.5h``, ``500ms`` or a bare number of seconds."""
    if isinstance(text, int | float):
        if text <= 0:
            raise ValueError(f"{text!r} must be positive; {_HOW}")
        return float(text)
    match = _DURATION.match(text)
    if not match:
        raise ValueError(f"{text!r} is not a duration; {_HOW}")
    seconds = float(match.group(1)) * _UNIT_SECONDS[match.group(2)]
    if seconds <= 0:
        raise ValueError(f"{text!r} must be positive; {_HOW}")
    return seconds


def format_duration(seconds: float) -> str:
    return f"{max(seconds, 0.0):.1f}s"
