"""Which proxy the gateway's calls to the model API take.

The gateway hands httpx a transport of its own (cassettes wrap it), and httpx reads the proxy
variables only for the transport it builds itself; so the choice is made here, from the run's
environment, the way urllib and curl read it: ``<scheme>_proxy`` then ``all_proxy``, any case
with the lowercase name winning, and ``no_proxy`` as curl matches it (``*``, a host and its
subdomains, an address, each optionally with ``:port``). A corporate network that reaches the
model API only through a proxy keeps working with the gateway in between.
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import urlsplit

_SUFFIX = "_proxy"
_DEFAULT_PORTS = {"http": 80, "https": 443}


def proxy_for(url: str, env: Mapping[str, str]) -> str | None:
    """The proxy URL for a call to ``url``, or None to go direct."""
    proxies = _proxies(env)
    parts = urlsplit(url)
    port = parts.port or _DEFAULT_PORTS.get(parts.scheme)
    if _bypassed(parts.hostname or "", port, proxies.get("no", "")):
        return None
    return proxies.get(parts.scheme) or proxies.get("all")


def _proxies(env: Mapping[str, str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for name, value in env.items():  # any case first...
        if value and name.lower().endswith(_SUFFIX):
            found.setdefault(name.lower()[: -len(_SUFFIX)], value)
    for name, value in env.items():  # ...then the lowercase names win, as in urllib
        if value and name.endswith(_SUFFIX) and name == name.lower():
            found[name[: -len(_SUFFIX)]] = value
    return found


def _bypassed(host: str, port: int | None, no_proxy: str) -> bool:
    for entry in (part.strip().lower() for part in no_proxy.split(",")):
        if entry == "*":
            return True
        name, _, wanted_port = entry.partition(":") if entry.count(":") == 1 else (entry, "", "")
        name = name.lstrip(".").strip("[]")
        if not name or (wanted_port and str(port) != wanted_port):
            continue
        if host.lower() == name or host.lower().endswith("." + name):
            return True
    return False
