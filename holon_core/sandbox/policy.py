"""Which hosts the room's egress proxy lets through, and which addresses it never dials.

An allow entry is ``HOST`` (any port), ``HOST:PORT``, ``*.DOMAIN[:PORT]`` or an IP literal
(``[v6]:PORT`` for IPv6), from ``--allow-host`` / ``HOLON_ALLOW_HOSTS`` (comma or space
separated) and the spec's ``constraints.network.allow``. A name the policy allows is still
refused when it resolves to a loopback, private, link-local (cloud metadata), multicast or
unspecified address: a public name pointed at the host's own services must not open them.
An IP literal in the list is the user's explicit choice and is dialled as written.
``HOLON_SANDBOX_RESOLVE`` pins names to addresses (``NAME:PORT:ADDR``, like curl's
``--resolve``), for a mirror on a private network and for tests; a pinned name is dialled at
its pinned address, private or not.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from holon_core.errors import HolonError

ALLOW_VARIABLE = "HOLON_ALLOW_HOSTS"
RESOLVE_VARIABLE = "HOLON_SANDBOX_RESOLVE"
_HOST = re.compile(
    r"^(\*\.)?[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?)*$"
)


class PolicyError(HolonError):
    reason = "invalid_input"


@dataclass(frozen=True, slots=True)
class AllowRule:
    host: str
    port: int | None

    def matches(self, host: str, port: int) -> bool:
        if self.port is not None and self.port != port:
            return False
        if self.host.startswith("*."):
            return host.endswith(self.host[1:]) and host != self.host[2:]
        return host == self.host

    def __str__(self) -> str:
        shown = f"[{self.host}]" if ":" in self.host else self.host
        return shown if self.port is None else f"{shown}:{self.port}"


@dataclass(frozen=True, slots=True)
class NetworkPolicy:
    allow: tuple[AllowRule, ...] = ()
    pinned: Mapping[tuple[str, int], str] = field(default_factory=dict)

    def allowed(self, host: str, port: int) -> AllowRule | None:
        host = host.lower().rstrip(".")
        return next((rule for rule in self.allow if rule.matches(host, port)), None)

    def describe(self) -> list[str]:
        return [str(rule) for rule in self.allow]


def parse_rule(text: str) -> AllowRule:
    """One allow entry; PolicyError naming it and the accepted forms."""
    raw = text.strip().lower()
    host, port = raw, None
    if raw.startswith("["):
        close = raw.find("]")
        host, rest = raw[1:close], raw[close + 1 :]
        if close < 0 or (rest and not rest.startswith(":")):
            raise _bad(text)
        port = rest[1:] or None
    elif raw.count(":") == 1:
        host, port = raw.split(":")
    number = None
    if port is not None:
        if not port.isdigit() or not 0 < int(port) < 65536:
            raise _bad(text)
        number = int(port)
    if not (_is_ip(host) or _HOST.match(host)):
        raise _bad(text)
    return AllowRule(host.rstrip("."), number)


def _bad(text: str) -> PolicyError:
    return PolicyError(
        f"allowed host {text!r} is not HOST, HOST:PORT, *.DOMAIN[:PORT] or an IP address",
        hint="write it like --allow-host registry.npmjs.org:443 or HOLON_ALLOW_HOSTS=pypi.org",
    )


def _is_ip(host: str) -> bool:
    import ipaddress  # not at the top: the CLI parses flags with this module

    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def split_hosts(value: str) -> list[str]:
    return [part for part in re.split(r"[,\s]+", value) if part]


def network_policy(env: Mapping[str, str], spec_allow: Iterable[str] = ()) -> NetworkPolicy:
    """The run's policy from its settings and the spec; PolicyError on a malformed entry."""
    entries = [*split_hosts(env.get(ALLOW_VARIABLE, "")), *spec_allow]
    rules = tuple(dict.fromkeys(parse_rule(entry) for entry in entries))
    pinned: dict[tuple[str, int], str] = {}
    for entry in split_hosts(env.get(RESOLVE_VARIABLE, "")):
        parts = entry.rsplit(":", 2) if not entry.endswith("]") else None
        if (
            not parts
            or len(parts) != 3
            or not parts[1].isdigit()
            or not _is_ip(parts[2].strip("[]"))
        ):
            raise PolicyError(
                f"{RESOLVE_VARIABLE} entry {entry!r} is not NAME:PORT:ADDRESS",
                hint=f"write it like {RESOLVE_VARIABLE}=mirror.internal:443:10.0.0.5",
            )
        pinned[(parts[0].lower(), int(parts[1]))] = parts[2].strip("[]")
    return NetworkPolicy(rules, pinned)


def forbidden_address(address: str) -> str | None:
    """Why a resolved address is never dialled for a name, or None for a public one."""
    import ipaddress

    ip = ipaddress.ip_address(address)
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    for kind in ("loopback", "link_local", "private", "multicast", "unspecified", "reserved"):
        if getattr(ip, f"is_{kind}"):
            return f"{kind.replace('_', '-')} address {address}"
    return None
