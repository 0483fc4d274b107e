"""How a shell command ended, read where Gemini CLI writes it and the command's output cannot.

Gemini CLI 0.61.0 (``ShellToolInvocation.execute`` in its bundle) answers the model's
``run_shell_command`` with these lines joined by ``\\n``, in this order::

    Output: <what the command printed, end-trimmed; "(empty)" when nothing>
    Error: <message>              only when the command could not be run
    Exit Code: <N>                only when non-zero
    Signal: <S>                   only when a signal ended it
    Background PIDs: <p, q>       only when it left some
    Process Group PGID: <P>

wrapped in ``<untrusted_context>`` tags (a closing tag in the text escaped). The output is free
text and may hold lines such as ``Exit Code: 0`` itself, so reading the last ``Exit Code``
line let a command fake its exit code. The same call's ``resultDisplay`` (the stream's
``output``) is that output exactly when it is not blank, and one of the CLI's own sentences
(``Command exited with code: N``, ...) or nothing when it is: so the trailer is what follows the
known output, and only the trailer in the CLI's order is read.

An answer over the CLI's threshold (40,000 characters) is cut before it is sent and logged:
``Output too large. Showing first H and last T characters. For full output see: <file>``,
then its first H characters, ``... [N characters omitted] ...`` and its last T. Its whole
length is H + N + T (in UTF-16 units, as JavaScript counts), and the output is known, so the
trailer is where the end of the last T characters says. Anything else (a cancelled,
backgrounded or summarized answer, a display that is not text) is unknown.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_WRAPPER = re.compile(r"^\s*<untrusted_context>\n?|\n?</untrusted_context>\s*$")
_OPENING = "<untrusted_context>\n"
_CLOSING = "\n</untrusted_context>"
_CLOSING_TAG = "</untrusted_context>"
_ESCAPED_TAG = "&lt;/untrusted_context&gt;"
_OUTPUT = "Output: "
_NOTHING = "(empty)"
#: What ``resultDisplay`` says in place of a blank output (besides nothing at all).
_BLANK_DISPLAY = re.compile(
    r"|Command exited with code: -?\d+|Command terminated by signal: .+|Command failed: .+",
    re.DOTALL,
)
_CUT = re.compile(
    r"Output too large\. Showing first (?P<head>[^ ]+) and last (?P<tail>[^ ]+) characters\. "
    r"For full output see: [^\n]*\n"
)
_OMITTED = re.compile(r"\n\n\.\.\. \[(?P<omitted>[^\]]+) characters omitted\] \.\.\.\n\n")
_TRAILER = re.compile(
    r"(?:\nError: .*?)?"
    r"(?:\nExit Code: (?P<code>-?\d+))?"
    r"(?:\nSignal: (?P<signal>[^\n]+))?"
    r"(?:\nBackground PIDs: [^\n]*)?"
    r"(?:\nProcess Group PGID: \d+)?",
    re.DOTALL,
)


@dataclass(frozen=True)
class ShellEnd:
    """A command's end: its exit code, or the signal that ended it (then no exit code)."""

    exit_code: int | None
    signal: str | None = None


def shell_end(response: str, display: object) -> ShellEnd | None:
    """How the command ended, from the CLI's answer and its ``resultDisplay``; None: unknown."""
    if not isinstance(display, str):
        return None
    text = _WRAPPER.sub("", response)
    if not text.startswith(_OUTPUT):
        text = _uncut(response, _escaped(display)) or text
    if not text.startswith(_OUTPUT):
        return None
    trailer = _trailer(text[len(_OUTPUT) :], display)
    match = None if trailer is None else _TRAILER.fullmatch(trailer)
    if match is None:
        return None
    code, signal = match.group("code"), match.group("signal")
    if signal is not None:
        return ShellEnd(int(code) if code else None, signal)
    return ShellEnd(int(code) if code else 0)


def _trailer(body: str, display: str) -> str | None:
    """What the CLI wrote after the command's output; None when the output is not known."""
    shown = _escaped(display)
    if display.strip() and body.startswith(shown):
        return body[len(shown) :]
    if not _BLANK_DISPLAY.fullmatch(display):
        return None  # a display that is neither the output nor the CLI's blank-output text
    if body.startswith(_NOTHING):
        return body[len(_NOTHING) :]
    if not body[:1].isspace():
        return None
    rest = body.lstrip()  # a blank output: the trailer starts at the first visible line
    return "\n" + rest if rest else ""


def _uncut(response: str, shown: str) -> str | None:
    """``Output: <shown><trailer>`` of an answer the CLI cut; None when it is not one."""
    cut = _CUT.match(response)
    if cut is None:
        return None
    head, tail = _number(cut.group("head")), _number(cut.group("tail"))
    if head is None or tail is None:
        return None
    rest = _units(response[cut.end() :])
    after = rest[2 * head :].decode("utf-16-le", "surrogatepass")
    omitted = _OMITTED.match(after)
    count = _number(omitted.group("omitted")) if omitted else None
    if omitted is None or count is None:
        return None
    end = _units(after[omitted.end() :])  # the last ``tail`` units of the whole answer
    known, closing = _units(f"{_OPENING}{_OUTPUT}{shown}"), _units(_CLOSING)
    trailer = 2 * (head + count + tail) - len(known) - len(closing)  # in bytes
    before = len(end) - trailer - len(closing)  # where the output ends in ``end``
    if len(end) != 2 * tail or trailer < 0 or before < 0 or not end.endswith(closing):
        return None
    if not known.endswith(end[:before]):
        return None  # the cut answer does not end with this output
    found = end[before : len(end) - len(closing)].decode("utf-16-le", "surrogatepass")
    return f"{_OUTPUT}{shown}{found}"


def _escaped(display: str) -> str:
    """The output as the answer holds it (a closing tag escaped)."""
    return display.replace(_CLOSING_TAG, _ESCAPED_TAG)


def _units(text: str) -> bytes:
    """``text`` as UTF-16 code units, two bytes each: lengths as JavaScript counts them."""
    return text.encode("utf-16-le", "surrogatepass")


def _number(text: str) -> int | None:
    """A count as ``toLocaleString`` wrote it (``40,000``, ``40.000``); None past 12 digits
    (the log is the engine's to write: no int of thousands of digits from it)."""
    digits = re.sub(r"\D", "", text)
    return int(digits) if 0 < len(digits) <= 12 else None
