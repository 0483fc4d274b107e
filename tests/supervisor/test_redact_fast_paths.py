"""Redaction's fast paths for engine output give exactly what the plain algorithm gives.

The break pattern is written for speed; the specification it must match is the plain one
below (a raw or JSON-escaped line break, then any run of spaces, tabs and escaped tabs).
A block with line breaks but no secret is answered without mapping every break back.
"""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from holon_core.untrusted.redact import _BREAK, REPLACEMENT, Redactor

SPEC_BREAK = re.compile(r"(?:\r?\n|\\r\\n|\\n)(?:[ \t]|\\t)*")
PIECES = st.sampled_from(["\n", "\r", "\\", "n", "r", "t", " ", "\t", "a", "\\n", "\\t"])
SECRET = "k3y-VALUE-42xyz"


@given(st.lists(PIECES, max_size=40).map("".join))
def test_the_break_pattern_finds_the_same_breaks_as_its_specification(text):
    assert [m.span() for m in _BREAK.finditer(text)] == [
        m.span() for m in SPEC_BREAK.finditer(text)
    ]


@given(
    st.lists(st.sampled_from(["\n", "\\n", "\r\n", "  ", "\\t", "x", SECRET[:5], SECRET[5:]])),
)
def test_a_secret_wrapped_across_breaks_is_still_found(parts):
    text = "".join(parts)
    redact = Redactor([SECRET])
    joined = SPEC_BREAK.sub("", text)
    assert (SECRET in joined) == (REPLACEMENT in redact(text))
