"""Which variables reach the engine, and the rules that keep secrets out of the spec.

RFC-0002 3.1: secrets come from the environment, never from ``spec.yaml``. A spec names the
variables it needs in ``context.pass_env`` and a skill in its front matter
(``requires: {env: [...]}``); holon-agent copies exactly those from its own environment into
the engine's and redacts their values like an adapter's credentials. ``context.env`` carries
plain settings only: a value shaped like a token, or a name holon or the adapter owns, is
refused. Pydantic-free, so the probe and the spec model share these rules.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from holon_core.redact import looks_like_secret

#: What the engine is told about the run's directories (RFC-0003 section 4).
DIR_VARIABLES = ("HOLON_INPUT_DIR", "HOLON_WORKSPACE_DIR", "HOLON_OUTPUT_DIR")
#: A variable name ``context.pass_env`` and ``requires.env`` accept.
NAME_RULE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
#: Names the engine's environment is built from; a spec may neither set nor pass them.
RESERVED = frozenset({"PATH", "HOME", "TMPDIR"})
PASS_ENV_OWNER = "context.pass_env"


def context_env_problems(env: Mapping[str, object], owned: Iterable[str] = ()) -> list[str]:
    """Why ``context.env`` cannot be used as written (empty when it can)."""
    taken = set(owned)
    problems = []
    for name, value in env.items():
        if isinstance(value, str) and looks_like_secret(value):
            problems.append(
                f"context.env.{name} looks like a credential; secrets must not be in the spec "
                f"(RFC-0002 3.1): remove it and list {name} in context.pass_env instead, "
                "then export it where holon runs"
            )
        elif name.startswith("HOLON_") or name in RESERVED:
            problems.append(f"context.env.{name}: holon sets {name} itself; remove it")
        elif name in taken:
            problems.append(
                f"context.env.{name} is the engine adapter's own variable; export it where "
                "holon runs instead of writing it into the spec"
            )
    return problems


def pass_env_problems(names: Iterable[str]) -> list[str]:
    """Why ``context.pass_env`` cannot be used as written (empty when it can)."""
    problems = []
    for name in names:
        if not NAME_RULE.match(name):
            problems.append(f"context.pass_env: {name!r} is not a variable name")
        elif name.startswith("HOLON_") or name in RESERVED:
            problems.append(f"context.pass_env: holon sets {name} itself; remove it")
    return problems


@dataclass(slots=True)
class PassEnv:
    """The variables passed into the engine, each with who asked for it."""

    owners: dict[str, list[str]] = field(default_factory=dict)

    @classmethod
    def collect(
        cls, spec_names: Iterable[str], skills: Iterable[tuple[str, Iterable[str]]]
    ) -> PassEnv:
        """From ``context.pass_env`` and ``(skill name, requires.env)`` pairs, in order."""
        found = cls()
        for name in spec_names:
            found.owners.setdefault(name, []).append(PASS_ENV_OWNER)
        for skill, names in skills:
            for name in names:
                found.owners.setdefault(name, []).append(f"skill {skill}")
        return found

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self.owners)

    def missing(self, env: Mapping[str, str]) -> list[str]:
        """One message per unset (or empty) variable, naming who requires it."""
        return [
            f"{' and '.join(owners)} requires {name}, which is not set"
            for name, owners in self.owners.items()
            if not env.get(name)
        ]


MISSING_HINT = "export each variable named before running holon (holon run forwards it)"
