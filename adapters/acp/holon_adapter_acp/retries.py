"""Silent model retries an agent logs on stderr, counted so holon can stop them.

Some agents retry a failed model call for a minute or more and say nothing on the ACP
connection meanwhile (OpenCode: five attempts, 2 to 32 s apart, one ``stream error`` log line
each). A profile declares the log line and the variable that caps the retries, the same
variable its direct adapter reads, so both modes stop alike: past the cap the parser sets
``abort_reason`` and holon stops the agent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping

_RATE_LIMITED = re.compile(r"429|rate.?limit|too many requests|overloaded", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class RetryWatch:
    """One agent's retry log line and its cap."""

    #: A log line holding this text reports one failed model call...
    marker: str
    #: ...unless it holds one of these (side calls such as title generation).
    ignore: tuple[str, ...]
    variable: str
    default: int
    bounds: tuple[int, int]

    def limit(self, env: Mapping[str, str]) -> int:
        raw = env.get(self.variable, "").strip()
        value = int(raw) if raw.isdigit() else self.default
        return max(self.bounds[0], min(value, self.bounds[1]))

    def failed_call(self, line: str) -> bool:
        return self.marker in line and not any(word in line for word in self.ignore)


def retry_reason(line: str) -> str:
    return "rate_limited" if _RATE_LIMITED.search(line) else "engine_error"


#: OpenCode 1.18 with ``--print-logs`` (the direct adapter's ``HOLON_OPENCODE_MAX_RETRIES``).
OPENCODE = RetryWatch(
    marker='message="stream error"',
    ignore=("small=true", "agent=title"),
    variable="HOLON_OPENCODE_MAX_RETRIES",
    default=3,
    bounds=(1, 5),
)
