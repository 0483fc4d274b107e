"""No secret in a cassette: headers from an allowlist, ``key=`` out of queries, every known
secret value redacted in every form :mod:`holon_core.untrusted.redact` knows, and a final scan.

Why an allowlist and not a blocklist: an API adds headers every month, and the ones that
identify an account (``openai-organization``, ``openai-project``, ``set-cookie``, ``cf-ray``)
are exactly the ones a blocklist forgets. What a replay needs is little: the content type, the
API version and beta switches, and on errors the retry and reset headers.

The redaction runs on what is recorded (each request body, each streamed event, each answer)
as it is packed, with the run's secret values: the credentials the gateway swaps in and every
secret-looking variable of holon-agent's environment (``redact.secret_values``). Token shapes
(``sk-...``, ``Bearer ...``, ``ghp_...``) are redacted too, so a replay compares requests after
the same :meth:`Scrubber.shapes` pass (``normalize.normalize_text``): a task or workspace
holding an ``sk-...``-shaped string still matches. The final scan (:func:`leftovers`) reads
every file of the finished cassette before it is moved into place; anything found there
refuses the whole cassette.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode

from holon_core.untrusted.redact import Redactor, looks_like_secret

#: Request headers kept: what tells the API version, features and client, nothing personal.
REQUEST_HEADERS = frozenset(
    {
        "content-type",
        "accept",
        "anthropic-version",
        "anthropic-beta",
        "openai-beta",
        "user-agent",
        "x-goog-api-client",
        "x-stainless-lang",
        "x-stainless-package-version",
        "x-stainless-runtime",
        "x-stainless-runtime-version",
        "x-stainless-arch",
        "x-stainless-os",
        "x-stainless-retry-count",
    }
)
#: Response headers kept: the content type and what an engine's retries read.
RESPONSE_HEADERS = frozenset({"content-type", "retry-after", "x-should-retry"})
#: Query parameters never kept (Gemini's ``key=``; the others for APIs that copy it).
SECRET_QUERY = frozenset({"key", "api_key", "apikey", "access_token", "token"})


def keep_headers(headers: Iterable[tuple[str, str]], allowed: frozenset[str]) -> dict[str, str]:
    """The allowlisted headers (lower-case names); rate-limit reset headers are kept too."""
    kept: dict[str, str] = {}
    for name, value in headers:
        lower = name.lower()
        if lower in allowed or ("ratelimit" in lower and "reset" in lower):
            kept[lower] = value
    return kept


def clean_query(query: str, scrub: Callable[[str], str]) -> str:
    """The query without credential parameters, each name and value redacted as decoded
    (a value's URL encoding would hide the forms the redactor knows, e.g. a line break)."""
    if not query:
        return ""
    pairs = parse_qsl(query, keep_blank_values=True)
    return urlencode([(scrub(k), scrub(v)) for k, v in pairs if k.lower() not in SECRET_QUERY])


class Scrubber:
    """Redacts the run's known secret values (every form) and token shapes."""

    def __init__(self, secrets: Iterable[str]) -> None:
        self.secrets = sorted({s for s in secrets if s}, key=len, reverse=True)
        self.redactor = Redactor(self.secrets)
        #: Strings already redacted: every request resends the system prompt, the tool
        #: definitions and the history, so most strings of a call were seen in the one before
        #: (a Claude Code request's walk: 8 ms of CPU cold, under 1 ms warm).
        self._seen: dict[str, str] = {}

    def text(self, text: str) -> str:
        return self.redactor(text)

    def data(self, data: bytes) -> bytes:
        """Bytes redacted as UTF-8 text (latin-1 when not UTF-8: same bytes, same offsets)."""
        try:
            return self.redactor(data.decode()).encode()
        except UnicodeDecodeError:
            return self.redactor(data.decode("latin-1")).encode("latin-1")

    def json(self, value: Any) -> Any:
        """A JSON document with every string (keys too) redacted."""
        if isinstance(value, str):
            return self._string(value)
        if isinstance(value, list):
            return [self.json(v) for v in value]
        if isinstance(value, dict):
            return {self._string(k): self.json(v) for k, v in value.items()}
        return value

    def _string(self, value: str) -> str:
        done = self._seen.get(value)
        if done is None:
            done = self._seen[value] = self.redactor(value)
        return done

    def json_text(self, data: bytes) -> bytes:
        """A JSON answer (or an SSE event's ``data:`` lines) with its strings redacted as
        decoded too: a secret printed JSON-escaped inside a string (a tool's JSON output in
        the model's text) is escaped twice on the wire, a form :meth:`data` cannot see.
        The bytes change only where something was redacted."""
        try:
            text = data.decode()
        except UnicodeDecodeError:
            return data
        if text.lstrip().startswith(("{", "[")):
            fixed = self._json_line(text)
            return data if fixed is text else fixed.encode()
        lines = text.split("\n")
        changed = False
        for index, line in enumerate(lines):
            if line.startswith("data:"):
                payload = line[5:].strip()
                fixed = self._json_line(payload)
                if fixed is not payload:
                    lines[index], changed = "data: " + fixed, True
        return "\n".join(lines).encode() if changed else data

    def _json_line(self, text: str) -> str:
        try:
            value = json.loads(text)
        except ValueError:
            return text
        clean = self.json(value)
        if clean == value:
            return text
        return json.dumps(clean, ensure_ascii=False, separators=(",", ":"))

    @staticmethod
    def shapes() -> Redactor:
        """The token-shape pass alone: what a replay applies to a live request before it is
        compared with a recorded one (whose shapes were redacted)."""
        return Redactor(())


#: Where streamed text arrives piece by piece: Anthropic ``text`` / ``partial_json`` /
#: ``thinking`` deltas, Responses ``delta`` strings, Gemini parts' ``text``, Chat Completions'
#: ``content`` and tool ``arguments``.
_PIECE_KEYS = frozenset({"text", "partial_json", "thinking", "delta", "content", "arguments"})


def split_secret(events: Iterable[bytes], scrubber: Scrubber) -> bool:
    """True when a known secret spans events of one stream: a model that streams a secret
    sends it in pieces, each harmless alone, which the engine (and a replay) joins again.
    Redacting event by event cannot see it; the pieces joined in order can."""
    pieces = "".join(piece for event in events for piece in _event_pieces(event))
    return scrubber.redactor.find(pieces)


def _event_pieces(event: bytes) -> Iterator[str]:
    for line in event.decode("utf-8", "replace").splitlines():
        if not line.startswith("data:"):
            continue
        try:
            yield from _pieces(json.loads(line[5:]))
        except ValueError:
            continue


def _pieces(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            if key in _PIECE_KEYS and isinstance(item, str):
                yield item
            else:
                yield from _pieces(item)
    elif isinstance(value, list):
        for item in value:
            yield from _pieces(item)


def leftovers(root: Path, scrubber: Scrubber, *, verbatim: Iterable[str] = ()) -> list[str]:
    """Files under ``root`` still holding a known secret (any form) or a token shape.

    ``verbatim`` files (``diff.patch``: the workspace's own change, never redacted) are
    searched for the known values only: a token-shaped string in the user's code is the
    run's secret scan's business (``secret_in_changes``), not a reason to drop a cassette.
    """
    exempt = set(verbatim)
    found = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        data = path.read_bytes()
        where = path.relative_to(root).as_posix()
        if scrubber.redactor.find_bytes(data):
            found.append(f"{where} (a secret value of this run)")
        elif where not in exempt and looks_like_secret(data.decode("latin-1")):
            found.append(f"{where} (a token-shaped string)")
    return found
