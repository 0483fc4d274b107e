"""Redaction of secrets from everything holon writes (logs, events, summaries, manifests).

Two layers, always on: the exact values of credentials holon knows about, in every form a
tool prints them, and well-known token shapes. ``diff.patch`` is never redacted (that would
corrupt it); the agent scans it with :meth:`Redactor.find` instead.

The forms of a known value: raw, URL-encoded, JSON-escaped, hex (either case), base64 of the
value alone, and base64 of the value *inside* a longer string, as in HTTP Basic
``base64(user:KEY)``. There the key starts at an unknown offset, but base64 works on 3-byte
groups, so only three alignments exist: for each, the encoding of the key's bytes from the
first group boundary on appears verbatim whatever precedes it. Redacting that core leaves
at most two key bytes at either edge, mixed with other bits. Any of these forms may also be
wrapped across lines (``\n`` or ``\r\n``, real or JSON-escaped, then indentation): matching
runs on the text with line breaks taken out, mapped back to the original span.
"""

from __future__ import annotations

import base64
import bisect
import json
import re
from collections.abc import Iterable, Mapping
from urllib.parse import quote, quote_plus

REPLACEMENT = "***REDACTED***"
MIN_SECRET_LENGTH = 6
#: A base64 core shorter than this would match ordinary text too often.
MIN_CORE_LENGTH = 8
_SECRET_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH)", re.IGNORECASE)
#: A line break as printed raw or inside a JSON string, with the next line's indentation
#: (spaces, tabs, JSON-escaped tabs). Written without a repeated alternation, which makes
#: Python's regex engine scan about 8x faster than ``(?:\r?\n|...)(?:[ \t]|\\t)*``.
_BREAK = re.compile(r"(?:\n|\r\n|\\r\\n|\\n)[ \t]*(?:\\t[ \t]*)*")
_HAS_BREAK = re.compile(r"\n|\\n")
#: Token shapes, each with literals one of which any match contains: a pattern runs only
#: on text holding one of its literals (``in`` is far faster than a regex scan).
_SHAPES: list[tuple[re.Pattern[str], tuple[str, ...]]] = [
    (
        # Through its END line; a key cut short (``head -5 key.pem``) through the whole lines
        # that can be a key's body (base64, ``Proc-Type: ...`` headers), raw or JSON-escaped.
        re.compile(
            r"-----BEGIN [A-Z ]*PRIVATE KEY-----(?:.*?-----END [A-Z ]*PRIVATE KEY-----|(?:"
            r"\r?\n[ \t]*(?:[A-Za-z-]+:[^\r\n]*|[A-Za-z0-9+/=]+(?=[ \t]*(?:\r?\n|$)))"
            r"|(?:\\r)?\\n[ \t]*(?:[A-Za-z-]+:(?:[^\\\r\n\"]|\\[^nr])*"
            r"|[A-Za-z0-9+/=]+(?=[ \t]*(?:\\[rn]|\"|$))))*)",
            re.S,
        ),
        ("PRIVATE KEY-----",),
    ),
    (  # the tail of a key whose BEGIN was in another text (another event)
        re.compile(r"(?:[A-Za-z0-9+/=]{16,}(?:\\[nr]|[\r\n])+)+-----END [A-Z ]*PRIVATE KEY-----"),
        ("PRIVATE KEY-----",),
    ),
    (
        re.compile(r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}\b"),
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
    ),
    (re.compile(r"\bgithub_pat_[A-Za-z0-9_]{20,}\b"), ("github_pat_",)),
    (re.compile(r"\bsk-(?:ant-)?[A-Za-z0-9_-]{16,}"), ("sk-",)),
    (re.compile(r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b"), ("_live_", "_test_")),
    (re.compile(r"\bAKIA[0-9A-Z]{16}\b"), ("AKIA",)),
    (re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b"), ("AIza",)),
    (re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}\b"), ("xox",)),
    (re.compile(r"\bya29\.[A-Za-z0-9_-]{20,}"), ("ya29.",)),
    (re.compile(r"(?i)\b(bearer)\s+[A-Za-z0-9._~+/=-]{12,}"), ()),  # literal checked below
]
_PATTERNS = [pattern for pattern, _ in _SHAPES]
_BEARER = re.compile("bearer", re.IGNORECASE)
#: Every shape's literals at once: most texts hold none, and then no shape is looked at (one
#: pass of ``in`` checks instead of one per shape: a third of the time on a short line).
_LITERALS = tuple(literal for _, literals in _SHAPES for literal in literals)


def _shapes_in(text: str) -> list[re.Pattern[str]]:
    """The shape patterns that may match in ``text`` (those with one of their literals)."""
    bearer = _BEARER.search(text) is not None
    if not bearer and not any(literal in text for literal in _LITERALS):
        return []
    return [
        pattern
        for pattern, literals in _SHAPES
        if (any(lit in text for lit in literals) if literals else bearer)
    ]


def looks_like_secret(value: str) -> bool:
    """True when ``value`` has the shape of a well-known token (the patterns redacted below)."""
    return any(pattern.search(value) for pattern in _shapes_in(value))


def secret_values(env: Mapping[str, str], names: Iterable[str] = ()) -> list[str]:
    """Credential values to redact: the named variables plus any secret-looking variable."""
    wanted = set(names)
    values = {
        value
        for key, value in env.items()
        if (key in wanted or _SECRET_NAME.search(key)) and len(value) >= MIN_SECRET_LENGTH
    }
    return sorted(values, key=len, reverse=True)


def _variants(value: str) -> set[str]:
    """The forms a value takes in what tools print and holon writes (see the module doc)."""
    raw = value.encode()
    forms = {value, quote(value, safe=""), quote_plus(value)}
    forms.add(json.dumps(value)[1:-1])  # as it appears inside a JSON string (events, logs)
    forms.add(json.dumps(value, ensure_ascii=False)[1:-1])
    forms.update((raw.hex(), raw.hex().upper()))
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        forms.add(encode(raw).decode().rstrip("="))
        for skip in (0, 1, 2):  # the key's first byte at each offset modulo 3
            whole = (len(raw) - skip) // 3 * 3
            core = encode(raw[skip : skip + whole]).decode()
            if len(core) >= MIN_CORE_LENGTH:
                forms.add(core)
    return {form for form in forms if len(form) >= MIN_SECRET_LENGTH}


class _Matcher:
    """Finds any of ``forms`` in a text, also where line breaks split a form."""

    def __init__(self, forms: Iterable[str]) -> None:
        ordered = sorted(set(forms), key=len, reverse=True)
        self.exact = re.compile("|".join(map(re.escape, ordered))) if ordered else None
        joined = sorted({_BREAK.sub("", f) for f in ordered} - {""}, key=len, reverse=True)
        self.joined = re.compile("|".join(map(re.escape, joined))) if joined else None

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Non-overlapping ``(start, end)`` of every form in ``text``, in order."""
        if self.exact is None or self.joined is None:
            return []
        if not _HAS_BREAK.search(text):
            return [m.span() for m in self.exact.finditer(text)]
        if self.joined.search(_BREAK.sub("", text)) is None:  # the common case: no secret
            return []
        # Take the breaks out, search, and map each hit back to the original text.
        kept: list[tuple[int, int]] = []  # (start in original, start in joined) per piece
        pieces: list[str] = []
        pos = length = 0
        for brk in _BREAK.finditer(text):
            kept.append((pos, length))
            pieces.append(text[pos : brk.start()])
            length += brk.start() - pos
            pos = brk.end()
        kept.append((pos, length))
        pieces.append(text[pos:])
        starts = [joined_at for _, joined_at in kept]

        def original(index: int) -> int:
            piece = bisect.bisect_right(starts, index) - 1
            return kept[piece][0] + index - kept[piece][1]

        return [
            (original(m.start()), original(m.end() - 1) + 1)
            for m in self.joined.finditer("".join(pieces))
        ]


class Redactor:
    """Replaces known secret values (any form) and token-shaped strings with a marker."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        forms = {form for value in secrets for form in _variants(value)}
        self._text = _Matcher(forms)
        # bytes are searched as latin-1 text: one character per byte, the same offsets
        self._bytes = _Matcher(f.encode().decode("latin-1") for f in forms)

    def __call__(self, text: str) -> str:
        spans = self._text.spans(text)
        if spans:
            out: list[str] = []
            pos = 0
            for start, end in spans:
                out += [text[pos:start], REPLACEMENT]
                pos = end
            out.append(text[pos:])
            text = "".join(out)
        for pattern in _shapes_in(text):
            text = pattern.sub(_keep_prefix, text)
        return text

    def safe_cut(self, text: str, cut: int, reach: int) -> int:
        """The last position at or before ``cut`` where ``text`` can be split, each side
        redacted apart, without leaving a secret whole: no form of a known value (line breaks
        inside it included) and no token shape within ``reach`` characters of ``cut`` crosses
        it. Streams redacted piece by piece (the raw logs) cut only there; forms and tokens
        are assumed shorter than ``reach``, so only that window is searched.
        """
        low = max(0, cut - reach)
        window = text[low : cut + reach]
        spans = self._text.spans(window)
        for pattern in _shapes_in(window):
            spans += [m.span() for m in pattern.finditer(window)]
        at = cut - low
        for start, end in sorted(spans, reverse=True):  # a move back may meet an earlier one
            if start < at < end:
                at = start
        return low + at

    def find(self, text: str) -> bool:
        """True when ``text`` contains one of the exact secret values (any form)."""
        return bool(self._text.spans(text))

    def find_bytes(self, data: bytes) -> bool:
        """:meth:`find` for file contents that may not be text."""
        return bool(self._bytes.spans(data.decode("latin-1")))


_KEY_BEGIN = re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----")
_KEY_END = re.compile(r"-----END [A-Z ]*PRIVATE KEY-----")
#: A line inside a PEM block: base64, a header (``Proc-Type: 4,ENCRYPTED``) or blank.
_KEY_BODY = re.compile(r"\s*(?:[A-Za-z0-9+/=]*|[A-Za-z-]+:.*)\s*")


class KeyLines:
    """A private key printed one line per event (a tool's ``cat key.pem`` on the engine's
    stderr): the shape above needs BEGIN and the body in one text, and each line event is
    redacted alone, so the body lines would stay readable one by one. One per output stream:
    after a BEGIN line, each body line is replaced until the END line or the first line that
    cannot be part of a key."""

    def __init__(self) -> None:
        self.inside = False

    def __call__(self, line: str) -> str:
        if self.inside:
            end = _KEY_END.search(line)
            if end is not None:
                self.inside = False
                return REPLACEMENT + line[end.end() :]
            if _KEY_BODY.fullmatch(line):
                return REPLACEMENT
            self.inside = False
            return line
        if "PRIVATE KEY-----" not in line:
            return line
        begins = list(_KEY_BEGIN.finditer(line))
        if begins and _KEY_END.search(line, begins[-1].end()) is None:
            self.inside = True
            return line[: begins[-1].start()] + REPLACEMENT
        return line


def _keep_prefix(match: re.Match[str]) -> str:
    if match.lastindex:  # "Bearer <token>" keeps the scheme word
        return f"{match.group(1)} {REPLACEMENT}"
    return REPLACEMENT
