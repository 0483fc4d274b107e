"""Redaction of secrets from everything holon writes (logs, events, summaries, manifests).

Two layers, always on: the exact values of credentials holon knows about (plus their base64
and URL-encoded forms), and well-known token shapes. ``diff.patch`` is never redacted (that
would corrupt it); the agent scans it with :meth:`Redactor.find` instead.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterable, Mapping
from urllib.parse import quote, quote_plus

REPLACEMENT = "***REDACTED***"
MIN_SECRET_LENGTH = 6
_SECRET_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH)", re.IGNORECASE)
_PATTERNS = [
    re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?-----END [A-Z ]*PRIVATE KEY-----", re.S),
    re.compile(r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}\b"),
    re.compile(r"\bgithub_pat_[A-Za-z0-9_]{20,}\b"),
    re.compile(r"\bsk-(?:ant-)?[A-Za-z0-9_-]{16,}"),
    re.compile(r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b"),
    re.compile(r"\bAKIA[0-9A-Z]{16}\b"),
    re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b"),
    re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}\b"),
    re.compile(r"\bya29\.[A-Za-z0-9_-]{20,}"),
    re.compile(r"(?i)\b(bearer)\s+[A-Za-z0-9._~+/=-]{12,}"),
]


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
    """The forms a value takes in what holon writes: raw, URL-, base64- and JSON-escaped."""
    raw = value.encode()
    forms = {value, quote(value, safe=""), quote_plus(value)}
    forms.add(json.dumps(value)[1:-1])  # as it appears inside a JSON string (events, logs)
    forms.add(json.dumps(value, ensure_ascii=False)[1:-1])
    forms.add(base64.b64encode(raw).decode().rstrip("="))
    forms.add(base64.urlsafe_b64encode(raw).decode().rstrip("="))
    return {form for form in forms if len(form) >= MIN_SECRET_LENGTH}


class Redactor:
    """Replaces known secret values and token-shaped strings with a marker."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        forms = sorted(
            {form for value in secrets for form in _variants(value)}, key=len, reverse=True
        )
        self._exact = re.compile("|".join(re.escape(f) for f in forms)) if forms else None
        raw = [f.encode() for f in forms]
        self._exact_bytes = re.compile(b"|".join(re.escape(f) for f in raw)) if raw else None

    def __call__(self, text: str) -> str:
        if self._exact is not None:
            text = self._exact.sub(REPLACEMENT, text)
        for pattern in _PATTERNS:
            text = pattern.sub(_keep_prefix, text)
        return text

    def find(self, text: str) -> bool:
        """True when ``text`` contains one of the exact secret values (any encoding)."""
        return self._exact is not None and self._exact.search(text) is not None

    def find_bytes(self, data: bytes) -> bool:
        """:meth:`find` for file contents that may not be text."""
        return self._exact_bytes is not None and self._exact_bytes.search(data) is not None


def _keep_prefix(match: re.Match[str]) -> str:
    if match.lastindex:  # "Bearer <token>" keeps the scheme word
        return f"{match.group(1)} {REPLACEMENT}"
    return REPLACEMENT
