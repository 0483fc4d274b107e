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
known output, and only the trailer in the CLI's order is read. Anything else (a cancelled,
backgrounded, truncated or summarized answer, a display that is not text) is unknown.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_WRAPPER = re.compile(r"^\s*<untrusted_context>\n?|\n?</untrusted_context>\s*$")
_CLOSING_TAG = "</untrusted_context>"
_ESCAPED_TAG = "&lt;/untrusted_context&gt;"
_OUTPUT = "Output: "
_NOTHING = "(empty)"
#: What ``resultDisplay`` says in place of a blank output (besides nothing at all).
_BLANK_DISPLAY = re.compile(
    r"|Command exited with code: -?\d+|Command terminated by signal: .+|Command failed: .+",
    re.DOTALL,
)
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
    text = _WRAPPER.sub("", response)
    if not text.startswith(_OUTPUT) or not isinstance(display, str):
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
    shown = display.replace(_CLOSING_TAG, _ESCAPED_TAG)
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
