"""The per-run placeholder credential and its swap for the real one, upstream only.

Each credential variable the user set (an adapter's ``credential_env``) gets its own random
placeholder in the engine's environment, in that same variable: the engine then sends it in
the header its real key would travel in (``x-api-key``, ``Authorization: Bearer``,
``x-goog-api-key``, a ``key=`` query), and the gateway puts the real value back in exactly
that place. No table of header forms per API is needed, and an adapter with new variables
works unchanged. A request carrying anything else in those places is refused (403): the
gateway is no open relay for other local processes.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field

#: Request headers that carry a model credential.
AUTH_HEADERS = frozenset({b"authorization", b"x-api-key", b"x-goog-api-key", b"api-key"})
PREFIX = "holon-placeholder-"


def make_placeholder() -> str:
    return PREFIX + secrets.token_hex(16)


@dataclass
class Credentials:
    """placeholder -> real value, one pair per credential variable the user set."""

    swaps: dict[str, str] = field(default_factory=dict)
    #: The engine's values: variable name -> placeholder.
    engine_values: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_env(cls, names: tuple[str, ...], env: Mapping[str, str]) -> Credentials:
        made = cls()
        for name in names:
            real = env.get(name)
            if real:
                placeholder = make_placeholder()
                made.swaps[placeholder] = real
                made.engine_values[name] = placeholder
        return made

    def _real(self, value: str) -> str | None:
        for placeholder, real in self.swaps.items():
            if hmac.compare_digest(value, placeholder):
                return real
        return None

    def swap_header(self, value: str) -> str | None:
        """The header value with the real credential, or None when it holds no placeholder."""
        scheme, _, token = value.partition(" ")
        if token and scheme.lower() in ("bearer", "token"):
            real = self._real(token.strip())
            return None if real is None else f"{scheme} {real}"
        return self._real(value.strip())

    def swap_query(self, pairs: list[tuple[str, str]]) -> list[tuple[str, str]] | None:
        """Query pairs with ``key=`` swapped; None when a ``key`` holds no placeholder."""
        out = []
        for name, value in pairs:
            if name == "key":
                real = self._real(value)
                if real is None:
                    return None
                value = real
            out.append((name, value))
        return out
