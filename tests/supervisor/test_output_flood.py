"""A chatty engine through the real holon-agent: raw output kept whole, events capped."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from hypothesis import given
from hypothesis import strategies as st

from holon_core.agent.evidence_stream import (
    EVENT_FIELD_CHARS,
    LONG_LINE_CHARS,
    EventBudget,
    RawLog,
)
from holon_core.engine.events import Event
from holon_core.process.pipes import MAX_LINE_BYTES, LineSplitter
from holon_core.testing import make_task
from holon_core.testing.agent_run import run_agent
from holon_core.untrusted.redact import Redactor

if TYPE_CHECKING:
    from pathlib import Path

SECRET = "s3cr3t-VALUE-0123456789abcdef"
#: The engine prints a file the test wrote beside the task, outside a room: these tests are
#: about holon's output path, so the room is off (its own tests are tests/sandbox/).
ENV = {"MY_API_KEY": SECRET, "HOLON_SANDBOX": "off"}


def _flood(tmp_path: Path, data: bytes):
    """holon-agent running the replay engine, which prints ``data`` on its stdout."""
    source = tmp_path / "flood.out"
    source.write_bytes(data)
    steps = [{"run": f"cat {source} > /proc/$PPID/fd/1"}, {"say": "done"}]
    task = make_task(tmp_path / "task", replay=steps, git_repo=False)
    result = run_agent(task, env=ENV, timeout=600)
    assert result.exit_code == 0, result.stderr
    return task, result


def test_a_huge_event_text_is_cut_with_a_marker_but_the_raw_log_keeps_it(tmp_path):
    text = "x" * (3 * EVENT_FIELD_CHARS)
    line = json.dumps({"type": "say", "text": text})
    task, result = _flood(tmp_path, f"{line}\n".encode())
    messages = [e for e in result.events if e["type"] == "message" and e["text"] != "done"]
    assert len(messages) == 1
    cut = messages[0]["text"]
    assert cut.startswith("x" * EVENT_FIELD_CHARS)
    assert f"[{2 * EVENT_FIELD_CHARS} more characters cut by holon]" in cut
    raw = (task.output / "evidence" / "engine.stdout.log").read_text()
    assert line in raw.splitlines()
    assert result.manifest is not None
    assert not any("events.ndjson" in w for w in result.manifest["metadata"].get("warnings", []))


def test_the_raw_log_is_every_byte_the_engine_printed_with_secrets_redacted(tmp_path):
    """MBs of output in many reads: secrets anywhere (read boundaries too) never written."""
    lines = [
        json.dumps({"type": "say", "text": f"line {i} é€ {SECRET if i % 97 == 0 else ''}"})
        for i in range(25_000)
    ]
    data = "\n".join(lines).encode() + b"\n"
    task, result = _flood(tmp_path, data)
    raw = (task.output / "evidence" / "engine.stdout.log").read_bytes()
    assert SECRET.encode() not in raw
    assert data.replace(SECRET.encode(), b"***REDACTED***") in raw
    events = (task.output / "evidence" / "events.ndjson").read_text()
    assert SECRET not in events
    assert sum(e["type"] == "message" for e in result.events) == 25_001


def test_a_line_longer_than_a_read_is_redacted_across_every_cut(tmp_path):
    """One 5 MB line: written in pieces, and a secret spanning a piece's edge is still caught."""
    filler = "a" * (LONG_LINE_CHARS // 3 - 7)
    text = (f"{filler} {SECRET} ") * 15
    task, _ = _flood(tmp_path, json.dumps({"type": "say", "text": text}).encode() + b"\n")
    raw = (task.output / "evidence" / "engine.stdout.log").read_text()
    assert SECRET not in raw
    assert raw.count("***REDACTED***") == 15
    assert len(raw) > 5_000_000


def test_raw_log_cut_moves_back_when_a_secret_spans_it():
    redact = Redactor([SECRET])
    log = RawLog()
    # The secret sits exactly where the first cut would fall (OVERLAP from the end).
    head = "b" * (LONG_LINE_CHARS + 10)
    chunk = head + SECRET + "c" * (16 * 1024 - len(SECRET) // 2)
    out = log.feed(chunk.encode(), redact) + log.finish(redact)
    assert SECRET not in out
    assert out == chunk.replace(SECRET, "***REDACTED***")


class _CountingRedactor(Redactor):
    """The real redactor, counting how much text it is given (safe cuts included)."""

    def __init__(self, secrets: list[str]) -> None:
        super().__init__(secrets)
        self.calls = 0
        self.chars = 0

    def __call__(self, text: str) -> str:
        self.calls += 1
        self.chars += len(text)
        return super().__call__(text)

    def safe_cut(self, text: str, cut: int, reach: int) -> int:
        self.calls += 1
        self.chars += min(len(text), cut + reach) - max(0, cut - reach)
        return super().safe_cut(text, cut, reach)


def test_a_long_token_shaped_line_is_redacted_in_linear_work():
    """No safe cut exists inside one long token: the cut is not retried on every read."""
    redact = _CountingRedactor([SECRET])
    log = RawLog()
    line = f"before sk-{'a' * (3 * LONG_LINE_CHARS)} {SECRET} after\n".encode()
    read = 64 * 1024
    out = "".join(log.feed(line[i : i + read], redact) for i in range(0, len(line), read))
    out += log.finish(redact)
    assert out == "before ***REDACTED*** ***REDACTED*** after\n"
    # a handful of attempts at a safe cut, each over the carry: bounded by a multiple of the line
    assert redact.chars <= 16 * len(line), redact.chars
    assert redact.calls <= 64, redact.calls


def test_event_budget_stops_at_the_cap_with_one_note_and_keeps_phases():
    budget = EventBudget(max_bytes=2000)
    written: list[str] = []
    for i in range(100):
        written += budget.lines(Event(type="message", text=f"message {i} " + "m" * 50, seq=i))
    written += budget.lines(Event(type="phase", text="artifacts"))
    types = [json.loads(line)["type"] for line in written]
    assert types.count("note") == 1
    assert types[-1] == "phase"
    assert sum(len(line) + 1 for line in written[:-1]) <= 2000 + 200  # the note itself
    assert budget.capped and budget.dropped > 0
    assert budget.warning is not None and str(budget.dropped) in budget.warning


@given(
    data=st.lists(st.sampled_from([b"a", b"\n", b"\xc3\xa9", b"\xff", b"{}"]), max_size=60),
    cuts=st.lists(st.integers(min_value=0, max_value=200), max_size=8),
)
def test_line_splitter_gives_the_same_lines_however_the_stream_is_read(data, cuts):
    stream = b"".join(data)
    splitter, lines, start = LineSplitter(), [], 0
    for cut in sorted(set(cuts)):
        lines += splitter.feed(stream[start:cut])
        start = max(start, cut)
    lines += splitter.feed(stream[start:]) + splitter.flush()
    expected = stream.split(b"\n")
    if expected[-1] == b"":
        expected.pop()
    assert lines == [piece[:MAX_LINE_BYTES].decode("utf-8", "replace") for piece in expected]
