"""Which recorded call answers a replayed request, and whether the request drifted.

The ladder, in order (docs/cassettes.md, "Matching"):

1. **Anchor**: the recorded calls with the same anchor (:mod:`holon_core.cassette.shape`:
   kind, path, model, tool use, turn, and the conversation from the model's last turn on).
   Several with one anchor are the engine's retries or repeats: a recorded failure that was
   retried (429, 5xx, an answer cut off) is skipped for the answer after it, and a request
   asked more often than recorded gets the last answer again. Concurrent requests each find
   their own anchor, so no order between them matters.
2. **Drift**: the anchored call's whole normalized body is compared with the request's. Equal:
   served. Different: strict mode refuses (``replay_mismatch``), lenient serves it with a
   warning.
3. **Nearest**: no anchor matched. The nearest recorded call of the same kind (same turn
   first, then the most lines in common) is named in the report; lenient mode serves it.

Side calls (token counts, model lists, anything but a model call) are matched leniently in
both modes: the anchored call, else the nearest one on the same path; they never fail a run.
"""

from __future__ import annotations

import difflib
import threading
from dataclasses import dataclass, field
from typing import Literal

from holon_core.cassette.shape import Shape

#: Statuses an engine retries: a recorded one followed by a retry is not the answer.
RETRIED_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504, 529})

Verdict = Literal["exact", "drift", "nearest", "side", "miss"]


@dataclass(frozen=True)
class Candidate:
    """A recorded call as matching sees it."""

    seq: int
    shape: Shape
    status: int | None
    error: str | None = None

    @property
    def retried_failure(self) -> bool:
        return self.status is None or self.status in RETRIED_STATUSES or self.error is not None


@dataclass(frozen=True)
class Match:
    verdict: Verdict
    #: The recorded call to serve (None: nothing to serve).
    served: Candidate | None
    #: The recorded call the request was compared with (for the report).
    nearest: Candidate | None

    @property
    def ok(self) -> bool:
        """Whether strict mode accepts it."""
        return self.verdict in ("exact", "side")


@dataclass
class Matcher:
    """Thread-safe: the gateway serves concurrent calls."""

    candidates: list[Candidate]
    _by_anchor: dict[str, list[Candidate]] = field(default_factory=dict)
    _asked: dict[str, int] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        for candidate in sorted(self.candidates, key=lambda c: c.seq):
            self._by_anchor.setdefault(candidate.shape.anchor, []).append(candidate)

    def match(self, request: Shape) -> Match:
        anchored = self._next_answer(request.anchor)
        side = request.kind != "model"
        if anchored is not None:
            if anchored.shape.lines == request.lines:
                return Match("exact", anchored, anchored)
            return Match("side" if side else "drift", anchored, anchored)
        nearest = self.nearest(request)
        if nearest is None:
            return Match("miss", None, None)
        return Match("side" if side else "nearest", nearest, nearest)

    def _next_answer(self, anchor: str) -> Candidate | None:
        group = self._by_anchor.get(anchor)
        if not group:
            return None
        answers = [c for i, c in enumerate(group) if i == len(group) - 1 or not c.retried_failure]
        with self._lock:
            asked = self._asked.get(anchor, 0)
            self._asked[anchor] = asked + 1
        return answers[min(asked, len(answers) - 1)]

    def nearest(self, request: Shape) -> Candidate | None:
        """The recorded call most like ``request``: same kind and method, the same path
        for a side call, then the same turn, then the most lines in common."""
        pool = [
            c
            for c in self.candidates
            if c.shape.kind == request.kind and c.shape.method == request.method
        ]
        if request.kind != "model":
            pool = [c for c in pool if c.shape.path == request.path]
        if not pool:
            return None
        same_turn = [c for c in pool if c.shape.turn == request.turn] or pool
        return max(same_turn, key=lambda c: (similarity(c.shape, request), -c.seq))


def similarity(a: Shape, b: Shape) -> float:
    """Share of lines in common, the conversation's tail weighing as much as the rest."""
    tail = difflib.SequenceMatcher(None, a.tail, b.tail, autojunk=False).ratio()
    whole = difflib.SequenceMatcher(None, a.lines, b.lines, autojunk=False).quick_ratio()
    return tail + whole
