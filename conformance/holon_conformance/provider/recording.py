"""What the provider remembers about each request, with credentials redacted.

Tests assert on these records (the prompt, system instructions, skills listed, tool results
the engine sent back), so they keep the parsed JSON body whole.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from holon_conformance.provider.conversation import iter_strings

if TYPE_CHECKING:
    from pathlib import Path

Kind = Literal["turn", "aux", "count", "models", "other"]
_SECRET_HEADERS = {"x-api-key", "authorization", "x-goog-api-key", "api-key", "cookie"}


def redact_headers(headers: dict[str, str]) -> dict[str, str]:
    return {k: ("[redacted]" if k.lower() in _SECRET_HEADERS else v) for k, v in headers.items()}


@dataclass(slots=True)
class RecordedRequest:
    """One request as the provider saw it. ``turn`` is the derived turn index (turns only)."""

    #: The wire API the request spoke (``provider.apis``), ``None`` for an unknown route.
    api: str | None
    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    kind: Kind
    turn: int | None = None
    query: dict[str, str] = field(default_factory=dict)
    #: What the provider answered: "reply", "error 401", "stall", "drop", "aux", ...
    served: str = ""
    warnings: list[str] = field(default_factory=list)
    time: float = field(default_factory=time.time)

    def text(self) -> str:
        """Every string in the body joined: handy for ``"marker" in request.text()``."""
        return "\n".join(iter_strings(self.body))

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False, default=str)


class Recorder:
    """Thread-safe in-memory list, mirrored as JSON lines when a log path is given."""

    def __init__(self, log_path: Path | None = None) -> None:
        self._lock = threading.Lock()
        self._items: list[RecordedRequest] = []
        self.log_path = log_path

    def add(self, record: RecordedRequest) -> None:
        with self._lock:
            self._items.append(record)
            if self.log_path is not None:
                with self.log_path.open("a", encoding="utf-8") as handle:
                    handle.write(record.to_json() + "\n")

    def snapshot(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._items)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
