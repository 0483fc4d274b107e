"""Issue 22: a credential the engine prints in pieces over several lines is redacted in the
raw logs too, wherever the line break falls and however the output reached holon.

The redactor treats line breaks inside a match as transparent (``redact.py``); the raw logs
are redacted block by block as the engine's output arrives, so the halves of a secret printed
by two separate writes used to land in two blocks, each redacted alone.
"""

from __future__ import annotations

import json

import pytest

from holon_core.agent import evidence_stream
from holon_core.agent.evidence import Evidence
from holon_core.agent.evidence_stream import RawLog
from holon_core.engine.events import Event
from holon_core.testing import make_task
from holon_core.untrusted.files import HeldDir
from holon_core.untrusted.redact import REPLACEMENT, Redactor

from .kit import run

SECRET = "Zq8vL2xR7mW4kT9pN3sB6yH1cF5"  # no well-known token shape: only the known value helps
ENV = {"MY_API_TOKEN": SECRET, "HOLON_REPLAY_PASS_ENV": "MY_API_TOKEN"}
HALF = len(SECRET) // 2


def _rejoinable(log: str) -> bool:
    return SECRET in log.replace("\r", "").replace("\n", "")


@pytest.mark.parametrize("fd", [1, 2], ids=["stdout", "stderr"])
@pytest.mark.parametrize("newline", ["\\n", "\\r\\n"], ids=["lf", "crlf"])
def test_a_secret_printed_in_two_writes_is_redacted_in_the_raw_log(tmp_path, fd, newline):
    to_engine = f"/proc/$PPID/fd/{fd}"
    first = f"printf '%s{newline}' $(printf %s $MY_API_TOKEN | cut -c1-{HALF}) > {to_engine}"
    second = f"printf '%s{newline}' $(printf %s $MY_API_TOKEN | cut -c{HALF + 1}-) > {to_engine}"
    # The pause lets holon store the first half before the second is printed.
    step = {"run": f"echo ordinary output > {to_engine}; {first}; sleep 0.5; {second}"}
    task = make_task(tmp_path, replay=[step, {"say": "done"}])
    result = run(task, env=ENV)
    assert result.exit_code == 0, result.stderr
    log = (task.output / "evidence" / f"engine.{['stdout', 'stderr'][fd - 1]}.log").read_text()
    assert "ordinary output\n" in log
    assert not _rejoinable(log), log
    assert REPLACEMENT in log
    # each printed line is also an event (stderr, or an unparsed stdout line): neither half
    # is left in events.ndjson, where the two lines are two events redacted one by one
    events = (task.output / "evidence" / "events.ndjson").read_text()
    assert SECRET[:HALF] not in events and SECRET[HALF:] not in events
    assert "ordinary output" in events


def _fed(text: str, cuts: list[int], redact: Redactor) -> str:
    """``text`` through a RawLog, read in pieces ending at ``cuts``."""
    data = text.encode()
    log, out, start = RawLog(), [], 0
    for end in [*cuts, len(data)]:
        out.append(log.feed(data[start:end], redact))
        start = end
    return "".join(out) + log.finish(redact)


@pytest.fixture
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> int:
    """The raw log's held-back context and write threshold made small: the same logic on
    texts of a few KiB instead of hundreds."""
    monkeypatch.setattr(evidence_stream, "OVERLAP", 512)
    monkeypatch.setattr(evidence_stream, "_WRITE_AT", 4096)
    return 512


@pytest.mark.parametrize("newline", ["\n", "\r\n"], ids=["lf", "crlf"])
def test_any_split_point_and_any_read_boundary_give_the_text_redacted_whole(newline, small_blocks):
    """A secret broken over a line at every position, the output read in pieces whose edges
    fall around it, and around where the first write would cut (the context held back ends
    inside the secret): the log is exactly the whole text redacted at once (no piece of the
    secret left, nothing else changed)."""
    redact = Redactor([SECRET])
    lines = [f"line {n} of ordinary output, nothing to hide" for n in range(200)]
    for split in range(1, len(SECRET)):
        broken = f"  {SECRET[:split]}{newline}    {SECRET[split:]} trailing"
        text = newline.join([*lines, broken, *lines[:40]]) + newline
        expected = redact(text)
        assert not _rejoinable(expected) and expected.count(REPLACEMENT) == 1
        at = text.index(broken) + 2 + split  # where the line break falls
        reads = [[at], [at - 3, at + len(newline)], list(range(100, len(text), 100))]
        reads += [[at + small_blocks + d] for d in range(-1, len(newline) + 2)]
        for cuts in reads:
            assert _fed(text, cuts, redact) == expected, (split, cuts)


def test_ordinary_output_is_not_changed_by_the_held_back_context():
    redact = Redactor([SECRET])
    text = "".join(f"{n}\tsome output ☃ with unicode\r\n" for n in range(20_000)) + "no newline"
    cuts = list(range(1000, len(text.encode()), 777))
    assert _fed(text, cuts, redact) == text


def test_line_events_of_one_stream_are_redacted_across_with_other_events_between(tmp_path):
    """The engine's stdout events land between two stderr lines (the pipes are read apart):
    the halves are still found, in both streams, and the file keeps the events' order."""
    held = HeldDir.open(tmp_path)
    evidence = Evidence(held, Redactor([SECRET]), started=0.0)
    evidence.event(Event(type="stderr", text=f"key: {SECRET[:5]}"))
    evidence.event(Event(type="tool_call", tool="run"))
    evidence.output("stdout", b'{"type": "tool_call"}\n')
    evidence.event(Event(type="stderr", text=f"  {SECRET[5:]} (end)"))
    evidence.event(Event(type="message", text=f"[{SECRET[:20]}", data={"unparsed": True}))
    evidence.event(Event(type="message", text=f"{SECRET[20:]}]", data={"unparsed": True}))
    evidence.event(Event(type="stderr", text="a last line"))
    evidence.close()
    held.close()
    written = (tmp_path / "evidence" / "events.ndjson").read_text()
    events = [json.loads(line) for line in written.splitlines()]
    assert [e["seq"] for e in events] == [1, 2, 3, 4, 5, 6]
    assert [e.get("text") for e in events] == [
        f"key: {REPLACEMENT}",
        None,
        f"{REPLACEMENT} (end)",
        f"[{REPLACEMENT}",
        f"{REPLACEMENT}]",
        "a last line",
    ]


#: A private key's body lines: no known value and no token shape, only the PEM frame says
#: they are secret.
KEY_BODY = [f"MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC{n}{'x' * n}" for n in range(8)]
KEY = "\n".join(["-----BEGIN PRIVATE KEY-----", *KEY_BODY, "-----END PRIVATE KEY-----", ""])


@pytest.mark.parametrize("fd", [1, 2], ids=["stdout", "stderr"])
def test_a_private_key_printed_line_by_line_is_redacted_in_every_event(tmp_path, fd):
    """Each printed line is its own event, redacted alone: the key's body lines (plain base64)
    were left readable one by one in events.ndjson. A key cut short (no END line) too."""
    to_engine = f"/proc/$PPID/fd/{fd}"
    steps = [
        {"write": {"path": "k.pem", "content": KEY}},
        {"run": f"cat k.pem > {to_engine}; echo after the key > {to_engine}"},
        {"run": f"head -4 k.pem > {to_engine}; echo after the cut key > {to_engine}; rm k.pem"},
        {"say": "done"},
    ]
    task = make_task(tmp_path, replay=steps)
    result = run(task)
    assert result.exit_code == 0, result.stderr
    written = (task.output / "evidence" / "events.ndjson").read_text()
    events = [json.loads(line) for line in written.splitlines()]
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    texts = [e.get("text") or "" for e in events]
    assert "after the key" in texts and "after the cut key" in texts
    for path in task.output.rglob("*"):
        if path.is_file():
            text = path.read_text(errors="replace")
            assert not [line for line in KEY_BODY if line in text], path


def test_a_key_whose_frame_spans_two_events_leaves_each_event_its_own_line(tmp_path):
    """BEGIN in one tool's output and END in the next, written in one block: redacted as one
    text, the match ran across the framing and the events between became one line."""
    held = HeldDir.open(tmp_path)
    evidence = Evidence(held, Redactor(), started=0.0)
    evidence.event(Event(type="tool_result", text=f"-----BEGIN PRIVATE KEY-----\n{KEY_BODY[0]}"))
    evidence.event(Event(type="message", text="between the two"))
    evidence.event(Event(type="tool_result", text=f"{KEY_BODY[1]}\n-----END PRIVATE KEY-----"))
    evidence.event(Event(type="message", text="last"))
    evidence.close()
    held.close()
    written = (tmp_path / "evidence" / "events.ndjson").read_text()
    events = [json.loads(line) for line in written.splitlines()]
    assert [e["seq"] for e in events] == [1, 2, 3, 4]
    assert [e["text"] for e in events][1:] == ["between the two", REPLACEMENT, "last"]
    assert KEY_BODY[0] not in written and KEY_BODY[1] not in written


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\\n"], ids=["lf", "crlf", "json-escaped"])
def test_a_key_cut_short_is_redacted_through_its_body_and_no_further(newline):
    """``head -4 key.pem``: no END line. The body lines go; the next ordinary line stays."""
    lines = ["ran: -----BEGIN PRIVATE KEY-----", *KEY_BODY[:2], "Proc-Type: 4,ENCRYPTED"]
    text = newline.join([*lines, KEY_BODY[2], "after the cut key, as printed", ""])
    redacted = Redactor()(text)
    assert redacted == f"ran: {REPLACEMENT}{newline}after the cut key, as printed{newline}"
