"""Skills: from a directory with ``SKILL.md`` to what the engine is given at run time.

Owns one skill's validation and package digest (``package``), the layers and their
precedence that give a run its ordered skills (``layers``), pinned archives (``archive``),
the local store (``store``), the listing behind ``holon skills list`` (``catalog``) and the
rules for the environment a skill may ask for (``env_rules``, pydantic-free: the spec check
and the probe use it). It imports only ``holon_core.errors`` and ``holon_core.untrusted``;
staging a skill into an engine's folder is the engine boundary's (``engine.staging``).
"""
