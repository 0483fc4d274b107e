"""The model wire APIs the scripted server speaks, named by protocol, never by client.

A request is routed by its path (and, for a model list, its headers); a client that names an
engine (``turn_requests("...")``, a raw ``tool`` turn) is resolved to the wire API its
installed adapter declares (``EngineAdapter.model_api``), so a new engine speaking one of
these protocols needs no edit here.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from holon_core.hooks.manager import HolonPlugins

ANTHROPIC_MESSAGES = "anthropic-messages"
OPENAI_RESPONSES = "openai-responses"
GOOGLE_GENERATE_CONTENT = "google-generate-content"
WIRE_APIS = (ANTHROPIC_MESSAGES, OPENAI_RESPONSES, GOOGLE_GENERATE_CONTENT)


def api_for_path(path: str, headers: dict[str, str]) -> str | None:
    """The wire API a request speaks, from its path; ``None`` for no known route."""
    if path.startswith("/v1/messages"):
        return ANTHROPIC_MESSAGES
    if path.startswith("/v1/responses"):
        return OPENAI_RESPONSES
    if path.startswith("/v1beta/"):
        return GOOGLE_GENERATE_CONTENT
    if path.startswith("/v1/models"):
        lower = {k.lower() for k in headers}
        anthropic = "anthropic-version" in lower or "x-api-key" in lower
        return ANTHROPIC_MESSAGES if anthropic else OPENAI_RESPONSES
    return None


def wire_api(name: str) -> str:
    """``name`` if it is a wire API, else the one the installed adapter ``name`` declares."""
    if name in WIRE_APIS:
        return name
    api = installed_adapters().get_engine(name).model_api
    if api not in WIRE_APIS:
        raise ValueError(
            f"adapter {name!r} declares model_api={api!r}, which the scripted server does not "
            f"speak (it speaks: {', '.join(WIRE_APIS)}); declare one of those in the adapter"
        )
    return api


@functools.cache
def installed_adapters() -> HolonPlugins:
    """The installed adapters, loaded once (``get_engine`` names them all when one is unknown)."""
    from holon_core.hooks.manager import load_plugins

    return load_plugins()
