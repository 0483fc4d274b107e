"""Evidence at the speed of the engine: raw output in blocks, normalized events capped.

An engine may print hundreds of megabytes. Its raw output is stored block by block (one
redaction and one write per block of reads, never per line) and its normalized events are
bounded: each text field at :data:`EVENT_FIELD_CHARS` characters (cut with a marker) and the
whole of ``events.ndjson`` at :data:`EVENTS_MAX_BYTES` (then one ``note`` event says so;
phases are still written). The raw log is never capped: it is the complete record.

Redacting piece by piece must not miss a secret printed across pieces (two writes, two
lines): the raw log holds back context and cuts only where no secret spans (:class:`RawLog`);
two line events of one stream are redacted across the break (:func:`redact_across`).
"""

from __future__ import annotations

import codecs
from typing import TYPE_CHECKING, Any

from holon_core.engine.events import Event
from holon_core.untrusted.redact import REPLACEMENT

if TYPE_CHECKING:
    from holon_core.untrusted.redact import Redactor

#: Longest text field kept in one normalized event; longer ones are cut with a marker.
EVENT_FIELD_CHARS = 64 * 1024
#: Longest serialized event; a longer one keeps its type and ids, its data is replaced.
EVENT_MAX_CHARS = 256 * 1024
#: ``events.ndjson`` stops growing at about this size (the raw log keeps everything).
EVENTS_MAX_BYTES = 16 * 1024 * 1024
#: A line longer than this is written in pieces (redacted with :data:`OVERLAP` of context).
LONG_LINE_CHARS = 1024 * 1024
#: A secret or token (in any printed form, wrapped over lines) is assumed shorter than this:
#: the context kept across a cut.
OVERLAP = 16 * 1024
#: Raw output is looked at once this much more has come (then all but the last OVERLAP of
#: it is written): the look around the cut costs about an eighth of the redaction.
_WRITE_AT = 16 * OVERLAP
#: A carry this long without a safe cut is written whole (redacted): memory stays bounded.
_GIVE_UP_CHARS = 8 * LONG_LINE_CHARS
_MAX_DEPTH = 32


_CUT_MARK = " more characters cut by holon]"


def _cut(text: str) -> str:
    """At most EVENT_FIELD_CHARS characters and a marker (a text already cut stays as is)."""
    if len(text) <= EVENT_FIELD_CHARS or (
        len(text) <= EVENT_FIELD_CHARS + 64 and text.endswith(_CUT_MARK)
    ):
        return text
    dropped = len(text) - EVENT_FIELD_CHARS
    return f"{text[:EVENT_FIELD_CHARS]}…[{dropped}{_CUT_MARK}"


def _cap_value(value: Any, depth: int = 0) -> Any:
    if isinstance(value, str):
        return _cut(value)
    if depth >= _MAX_DEPTH:
        return "[nested too deep: cut by holon]"
    if isinstance(value, dict):
        return {key: _cap_value(item, depth + 1) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_cap_value(item, depth + 1) for item in value]
    return value


class EventBudget:
    """Serializes events for ``events.ndjson``, applying the per-event and total caps."""

    def __init__(self, max_bytes: int = EVENTS_MAX_BYTES) -> None:
        self.max_bytes = max_bytes
        self.written = 0
        #: Events left out after the cap was reached.
        self.dropped = 0
        self.capped = False

    @property
    def warning(self) -> str | None:
        """The manifest warning once the cap was reached, else None."""
        if not self.capped:
            return None
        return (
            f"evidence/events.ndjson reached its cap of {self.max_bytes} bytes: "
            f"{self.dropped} later engine events were left out of it "
            "(evidence/engine.stdout.log keeps the engine's complete output)"
        )

    def lines(self, event: Event) -> list[str]:
        """The JSON lines to write for ``event``: itself, a cap note, or nothing."""
        if self.capped and event.type != "phase":
            self.dropped += 1
            return []
        line = self._serialize(event)
        if event.type != "phase" and self.written + len(line) > self.max_bytes:
            self.capped = True
            self.dropped += 1
            note = Event(
                type="note",
                text=f"events.ndjson reached its cap of {self.max_bytes} bytes; later engine "
                "events are left out (engine.stdout.log keeps the complete output)",
                data={"events_capped": True, "cap_bytes": self.max_bytes},
                seq=event.seq,
                ts=event.ts,
            )
            line = note.to_json()
        self.written += len(line) + 1
        return [line]

    @staticmethod
    def cap(event: Event) -> None:
        """Cut the event's text fields to :data:`EVENT_FIELD_CHARS` (as it is recorded, and
        before anyone else sees it); :meth:`lines` does it too, a second time changes nothing."""
        if event.text is not None:
            event.text = _cut(event.text)
        if event.data:
            event.data = _cap_value(event.data)

    @classmethod
    def _serialize(cls, event: Event) -> str:
        line = event.to_json()
        if len(line) <= EVENT_FIELD_CHARS:
            return line  # no field of it can be longer than the whole: nothing to cut
        cls.cap(event)
        line = event.to_json()
        if len(line) > EVENT_MAX_CHARS:
            event.data = {"cut_by_holon": f"{len(line)} characters of event data left out"}
            line = event.to_json()
        return line


class RawLog:
    """One raw output stream: decodes chunks and yields redacted text, safe to write.

    The redactor treats line breaks inside a match as transparent (a secret wrapped over
    lines), but the engine may print the halves in two writes, which reach holon in two
    chunks. So the last :data:`OVERLAP` characters are held back: the written text ends at a
    line break before them, moved back where it would cut a secret (``Redactor.safe_cut``),
    and the look happens only once :data:`_WRITE_AT` new characters came, which keeps the
    look around the cut a small share of the work. ``finish`` writes the rest.

    A line longer than :data:`LONG_LINE_CHARS` is written in pieces, cut only where redacting
    the two sides apart gives the same text as redacting them together (a secret spanning the
    cut moves the cut back); at the end, or when no safe cut is found, the rest is written as
    is. Looking for such a cut redacts the whole carry several times, so after a failed look
    (one long token, say) the next one waits until the carry has doubled: the work stays
    linear in the line's length instead of growing with its square.
    """

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._carry = ""
        #: Text decoded since the last look for a cut, and its length (joined only then).
        self._new: list[str] = []
        self._new_chars = 0
        #: Length of the carry when a safe cut was last looked for in vain (0: none).
        self._failed = 0

    def feed(self, chunk: bytes, redact: Redactor) -> str:
        """Take a chunk; return the redacted text now safe to write (maybe empty)."""
        piece = self._decoder.decode(chunk)
        self._new.append(piece)
        self._new_chars += len(piece)
        if self._new_chars < _WRITE_AT:
            return ""
        text = self._carry + "".join(self._new)
        self._new.clear()
        self._new_chars = 0
        end = text.rfind("\n", 0, len(text) - OVERLAP) + 1
        end = redact.safe_cut(text, end, OVERLAP) if end else 0
        if end:
            self._carry, self._failed = text[end:], 0
            return redact(text[:end])
        if len(text) > LONG_LINE_CHARS and (
            len(text) >= 2 * self._failed or len(text) > _GIVE_UP_CHARS
        ):
            head, self._carry = _safe_cut(text, redact)
            self._failed = 0 if head else len(text)
            return head
        self._carry = text
        return ""

    def finish(self, redact: Redactor) -> str:
        """The rest: what was held back, and a last line without a newline."""
        self._new.append(self._decoder.decode(b"", final=True))
        text = self._carry + "".join(self._new)
        self._carry, self._failed, self._new_chars = "", 0, 0
        self._new.clear()
        return redact(text) if text else ""


def _safe_cut(text: str, redact: Redactor) -> tuple[str, str]:
    """Split a long line into (redacted head to write now, raw rest to keep)."""
    whole = redact(text)
    for keep in (OVERLAP, 2 * OVERLAP, 4 * OVERLAP):
        cut = len(text) - keep
        head = redact(text[:cut])
        if head + redact(text[cut:]) == whole:
            return head, text[cut:]
    if len(text) > _GIVE_UP_CHARS:  # bounded memory: give up on a safe cut
        return whole, ""
    return "", text


def line_stream(event: Event) -> str | None:
    """The output stream whose one line ``event`` holds (a stderr line, or a stdout line that
    was not JSON), else None."""
    if event.type == "stderr":
        return "stderr"
    if event.type == "message" and event.data.get("unparsed") is True:
        return "stdout"
    return None


def redact_across(first: Event, second: Event, redact: Redactor) -> None:
    """Redact a secret printed over two consecutive lines that became two events.

    Each event is redacted alone when written, which misses a value wrapped at the line
    break; joined, the redactor finds it (line breaks inside a match are transparent). The
    part before the break ends in the marker, the part after starts with it.
    """
    before, after = first.text or "", second.text or ""
    if not before or not after:
        return
    joined = f"{before}\n{after}"
    start = redact.safe_cut(joined, len(before), OVERLAP)
    if start == len(before):
        return  # nothing spans the break
    first.text = before[:start] + REPLACEMENT
    low, high = len(before) + 1, len(joined)  # the shortest text from start holding it
    if not redact.find(joined[start:high]):
        return  # a token shape, redacted in each event anyway
    while low < high:
        mid = (low + high) // 2
        if redact.find(joined[start:mid]):
            high = mid
        else:
            low = mid + 1
    second.text = REPLACEMENT + after[high - len(before) - 1 :]
