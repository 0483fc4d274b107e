"""``holon run`` holds the user's model key only as long as it must.

The host runner reads the key from the user's environment and hands it to ``holon-agent``
(whose model gateway sends it upstream); the engine runs below both. Once the agent's
environment is built, the runner drops every credential variable an installed adapter names
from its own environment (its initial environment block too, which ``/proc/<pid>/environ``
shows) and becomes non-dumpable, as holon-agent does (:mod:`holon_core.gateway.harden`): a
process of the engine's tree, running as the same non-root user, can then read the key
from neither. It stays in the runner's memory only, for the agent's environment.
"""

from __future__ import annotations

from collections.abc import Mapping

from holon_core.errors import HolonError
from holon_core.gateway.harden import harden_process


def guard_key(env: Mapping[str, str]) -> list[str]:
    """Drop the credential variables of every installed adapter from this process's
    environment and make it non-dumpable; what could not be done."""
    from holon_core.hooks.manager import load_plugins

    try:
        plugins = load_plugins(env)
    except HolonError:  # the run reports a plugin problem itself
        return []
    names = {
        name
        for engine in plugins.engine_names()
        for name in plugins.get_engine(engine).credential_env
    }
    return harden_process(tuple(sorted(names)))
