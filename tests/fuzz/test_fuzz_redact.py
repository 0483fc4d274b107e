"""Property tests for redaction of known credential values (issue 12, item 3).

For any key of realistic shape, embedded in any text in any form a tool prints it (raw, hex
in either case, HTTP Basic base64 after any user name, any of these wrapped across lines at
any column with ``\\n`` or ``\\r\\n``, real or JSON-escaped, with indentation), nothing in the
redacted text gives the key back: no 8 consecutive key characters survive in the text, in
it with line breaks taken out, or in anything its hex or base64 runs decode to. Text that
does not hold the key is left exactly as it was.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import re
import string

from hypothesis import assume, given
from hypothesis import strategies as st

from holon_core.testing.fuzz import FUZZ
from holon_core.untrusted.redact import _PATTERNS, Redactor, _keep_prefix

KEYS = st.text(alphabet=string.ascii_letters + string.digits + "-_", min_size=20, max_size=64)
USERS = st.sampled_from(["", "x-access-token", "oauth2", "git", "user@example.com"]) | st.text(
    alphabet=string.printable.strip(), max_size=30
)
BREAKS = st.sampled_from(["\n", "\r\n", "\\n", "\\r\\n"])
INDENT = st.sampled_from(["", " ", "    ", "\t", "\\t", "  \\t"])
TEXT = st.text(max_size=60)
WINDOW = 8


def _b64(data: bytes, urlsafe: bool) -> str:
    return (base64.urlsafe_b64encode if urlsafe else base64.b64encode)(data).decode()


@st.composite
def printed(draw: st.DrawFn, key: str) -> str:
    """One way a tool prints ``key``."""
    raw = key.encode()
    form = draw(st.sampled_from(["raw", "hex", "HEX", "basic", "basic-url"]))
    if form == "raw":
        text = key
    elif form in ("hex", "HEX"):
        text = raw.hex() if form == "hex" else raw.hex().upper()
    else:
        text = _b64(f"{draw(USERS)}:{key}".encode(), form == "basic-url")
    if draw(st.booleans()):  # wrapped at a column, like base64(1) or a narrow terminal
        column = draw(st.integers(min_value=1, max_value=len(text)))
        glue = draw(BREAKS) + draw(INDENT)
        text = glue.join(text[i : i + column] for i in range(0, len(text), column))
    return text


_BREAK = re.compile(r"(?:\r?\n|\\r\\n|\\n)(?:[ \t]|\\t)*")


def _recoverable(text: str) -> list[str]:
    """Every string an attacker could read out of ``text`` by the encodings above."""
    joined = _BREAK.sub("", text)
    out = [text, joined]
    for run in re.findall(r"[0-9a-fA-F]{2,}", joined):
        for start in (0, 1):
            chunk = run[start:]
            out.append(bytes.fromhex(chunk[: len(chunk) // 2 * 2]).decode("latin-1"))
    for run in re.findall(r"[A-Za-z0-9+/_-]{4,}", joined):
        for start in range(4):
            chunk = run[start:]
            chunk = chunk[: len(chunk) // 4 * 4].replace("-", "+").replace("_", "/")
            with contextlib.suppress(binascii.Error, ValueError):
                out.append(base64.b64decode(chunk).decode("latin-1"))
    return out


@FUZZ
@given(key=KEYS, data=st.data(), before=TEXT, after=TEXT)
def test_no_printed_form_of_a_key_survives_redaction(key, data, before, after):
    text = before + data.draw(printed(key)) + after
    redacted = Redactor([key])(text)
    windows = {key[i : i + WINDOW] for i in range(len(key) - WINDOW + 1)}
    assume(not any(w in before + after for w in windows))  # the surroundings are not the key
    for found in _recoverable(redacted):
        leaked = [w for w in windows if w in found]
        assert not leaked, (redacted, leaked)


@FUZZ
@given(key=KEYS, text=st.text(max_size=300))
def test_text_without_the_key_is_unchanged(key, text):
    assume(key not in _BREAK.sub("", text))
    assume(not any(pattern.search(text) for pattern in _PATTERNS))
    assert Redactor([key])(text) == text
    assert not Redactor([key]).find(text)


TOKEN_SHAPES = st.sampled_from(
    [
        *("ghp_", "gho_", "github_pat_", "sk-", "sk-ant-", "sk_live_", "rk_test_", "AKIA"),
        *("AIza", "xoxb-", "ya29.", "Bearer ", "bEaReR\t", "-----BEGIN RSA PRIVATE KEY-----\n"),
    ]
).flatmap(
    lambda head: st.text(
        alphabet=string.ascii_letters + string.digits, min_size=0, max_size=40
    ).map(lambda body: head + body + ("\n-----END RSA PRIVATE KEY-----" if "BEGIN" in head else ""))
)


@FUZZ
@given(parts=st.lists(TOKEN_SHAPES | st.text(max_size=20), max_size=6))
def test_token_shapes_are_redacted_as_if_every_pattern_ran(parts):
    """The literal prefilter before each token-shape pattern never changes the result."""
    text = " ".join(parts)
    expected = text
    for pattern in _PATTERNS:
        expected = pattern.sub(_keep_prefix, expected)
    assert Redactor([])(text) == expected
