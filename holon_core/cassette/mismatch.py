"""What a replay tells when a request is not the recorded one: ``evidence/replay-mismatch.md``
and the warnings of a lenient replay.

The report shows the request, the nearest recorded call, and a unified diff of the two
normalized bodies in ``path: value`` lines (:func:`holon_core.cassette.shape.flatten`), so a
changed prompt or skill text shows as the sentence that changed.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from holon_core.cassette.match import Match
from holon_core.cassette.shape import Shape

#: Lines of a diff kept in the report (the rest is counted).
MAX_DIFF_LINES = 400
#: Characters of one line kept in the report.
MAX_LINE = 400


@dataclass(frozen=True)
class Mismatch:
    """One request strict mode refused (or lenient mode served with a warning)."""

    api: str
    request: Shape
    match: Match

    def summary(self) -> str:
        what = f"{self.request.method} {self.request.path} (turn {self.request.turn})"
        nearest = self.match.nearest
        if self.match.verdict == "drift" and nearest is not None:
            first = first_difference(nearest.shape, self.request)
            return f"{what} drifted from recorded call {nearest.seq}: first change at {first}"
        if nearest is not None:
            return f"{what} has no recorded answer; the nearest recorded call is {nearest.seq}"
        return f"{what} has no recorded answer and nothing recorded is like it"

    def diff(self) -> list[str]:
        nearest = self.match.nearest
        if nearest is None:
            return []
        return list(
            difflib.unified_diff(
                list(nearest.shape.lines),
                list(self.request.lines),
                f"recorded call {nearest.seq}",
                "this request",
                n=2,
                lineterm="",
            )
        )


def first_difference(recorded: Shape, request: Shape) -> str:
    """The JSON path of the first line that differs, e.g. ``system[2].text``."""
    for old, new in zip(recorded.lines, request.lines, strict=False):
        if old != new:
            return _path_of(new)
    longer = request.lines if len(request.lines) > len(recorded.lines) else recorded.lines
    shorter = min(len(request.lines), len(recorded.lines))
    return _path_of(longer[shorter]) if shorter < len(longer) else "(none)"


def _path_of(line: str) -> str:
    for mark in (": ", "+ "):
        if mark in line:
            return line.split(mark, 1)[0]
    return line


def report(cassette: str, mode: str, mismatches: list[Mismatch]) -> str:
    """The markdown of ``evidence/replay-mismatch.md``."""
    out = [
        "# Replay mismatch",
        "",
        f"Cassette: `{cassette}` (mode {mode}). A request the engine made is not the one "
        'recorded, after the normalizations of docs/cassettes.md ("Matching"). Re-record '
        "the cassette if the change is intended (`--record DIR`), or replay with "
        "`--cassette-mode lenient` to go on with the nearest recorded answers.",
        "",
    ]
    for number, mismatch in enumerate(mismatches, 1):
        out += _section(number, mismatch)
    return "\n".join(out) + "\n"


def _section(number: int, mismatch: Mismatch) -> list[str]:
    request, nearest = mismatch.request, mismatch.match.nearest
    out = [
        f"## {number}. {mismatch.summary()}",
        "",
        f"- request: `{request.method} {request.path}` ({mismatch.api}, {request.kind}, "
        f"turn {request.turn}, {len(request.lines)} lines normalized)",
    ]
    if nearest is None:
        out += ["- nearest recorded call: none", ""]
        return out
    out += [
        f"- nearest recorded call: {nearest.seq} `{nearest.shape.method} {nearest.shape.path}` "
        f"(turn {nearest.shape.turn}, status {nearest.status})",
        "",
        "```diff",
    ]
    lines = mismatch.diff()
    out += [_cut(line) for line in lines[:MAX_DIFF_LINES]]
    if len(lines) > MAX_DIFF_LINES:
        out.append(f"... {len(lines) - MAX_DIFF_LINES} more diff lines")
    out += ["```", ""]
    return out


def _cut(line: str) -> str:
    return line if len(line) <= MAX_LINE else line[:MAX_LINE] + f" ... ({len(line)} chars)"
