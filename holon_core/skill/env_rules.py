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

from holon_core.untrusted.quoting import clip
from holon_core.untrusted.redact import MIN_SECRET_LENGTH, looks_like_secret

#: What the engine is told about the run's directories (RFC-0003 section 4).
DIR_VARIABLES = ("HOLON_INPUT_DIR", "HOLON_WORKSPACE_DIR", "HOLON_OUTPUT_DIR")
#: A variable name ``context.pass_env`` and ``requires.env`` accept.
NAME_RULE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
#: Names the engine's environment is built from; a spec may neither set nor pass them.
RESERVED = frozenset({"PATH", "HOME", "TMPDIR"})
#: A ``context.env`` name ending in one of these (``GITHUB_TOKEN``, ``API_KEY``) holds a secret.
SECRET_WORDS = ("TOKEN", "KEY", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "CREDENTIALS")
PASS_ENV_OWNER = "context.pass_env"
#: The layer of skills that came with the workspace (``.holon/skills``, the engines' folders).
WORKSPACE = "workspace"


def holon_owned(name: str) -> bool:
    """True for a name holon itself sets in the engine's environment."""
    return name.startswith("HOLON_") or name in RESERVED


def secret_named(name: str) -> bool:
    """True for a name that says it holds a secret (``API_KEY``, ``GITHUB_TOKEN``...)."""
    upper = name.upper()
    return any(upper == word or upper.endswith("_" + word) for word in SECRET_WORDS)


def context_env_problems(env: Mapping[str, object], owned: Iterable[str] = ()) -> list[str]:
    """Why ``context.env`` cannot be used as written (empty when it can).

    A message names the variable, never its value (the value may be the secret).
    """
    taken = set(owned)
    problems = []
    for name, value in env.items():
        if not NAME_RULE.match(name):
            problems.append(
                f"context.env: {clip(name, 60)} is not a variable name "
                "(letters, digits and underscores, not starting with a digit)"
            )
        elif isinstance(value, str) and looks_like_secret(value):
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
        elif secret_named(name) and value:
            problems.append(
                f"context.env.{name} is named like a secret; secrets must not be in the spec "
                f"(RFC-0002 3.1): remove it and list {name} in context.pass_env instead, "
                "then export it where holon runs"
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
    """The variables passed into the engine, each with who asked for it.

    A skill that came with the workspace (``.holon/skills`` or an engine's own folder) is
    the repository's, not the caller's: it gets only variables ``context.pass_env`` names,
    so a repository cannot have the caller's other secrets handed to the engine. What it
    asks beyond them is in ``refused``.
    """

    owners: dict[str, list[str]] = field(default_factory=dict)
    refused: list[str] = field(default_factory=list)

    @classmethod
    def collect(
        cls, spec_names: Iterable[str], skills: Iterable[tuple[str, Iterable[str], str]]
    ) -> PassEnv:
        """From ``context.pass_env`` and ``(skill name, requires.env, source)``, in order."""
        found = cls()
        for name in spec_names:
            found.owners.setdefault(name, []).append(PASS_ENV_OWNER)
        allowed = set(found.owners)
        for skill, names, source in skills:
            for name in names:
                if source == WORKSPACE and name not in allowed and not holon_owned(name):
                    found.refused.append(
                        f"workspace skill {skill} requires {name}, which context.pass_env does "
                        "not name; a skill that came with the workspace gets only the variables "
                        "the spec passes"
                    )
                    continue
                found.owners.setdefault(name, []).append(f"skill {skill}")
        return found

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self.owners)

    def problems(self, env: Mapping[str, str]) -> list[str]:
        """Why the run cannot pass these variables: one message per name, naming who needs it.

        A skill may not ask for a name holon sets (``HOME``, ``HOLON_*``...): passing the
        caller's value would undo the run-local home or the run's directories. A name
        ``context.pass_env`` may not use is reported by :func:`pass_env_problems`.
        """
        found = list(self.refused)
        for name, owners in self.owners.items():
            who = " and ".join(owners)
            skills = [owner for owner in owners if owner != PASS_ENV_OWNER]
            if not NAME_RULE.match(name):
                continue  # only context.pass_env can hold one: pass_env_problems says so
            if holon_owned(name):
                if skills:
                    found.append(
                        f"{' and '.join(skills)} requires {name}, which holon sets itself for "
                        "the engine; remove it from the skill's requires.env"
                    )
            elif name not in env:
                found.append(f"{who} requires {name}, which is not set")
            elif not env[name]:
                found.append(f"{who} requires {name}, which is set but empty")
        return found

    def missing(self, env: Mapping[str, str]) -> list[str]:
        """Only the names whose value is absent or empty."""
        return [
            name
            for name in self.owners
            if not env.get(name) and NAME_RULE.match(name) and not holon_owned(name)
        ]

    def unredacted(self, env: Mapping[str, str]) -> list[str]:
        """A warning per value too short to redact without mangling what holon writes."""
        return [
            f"{' and '.join(owners)} passes {name}, whose value is shorter than "
            f"{MIN_SECRET_LENGTH} characters: it is passed but not redacted"
            for name, owners in self.owners.items()
            if 0 < len(env.get(name, "")) < MIN_SECRET_LENGTH and not holon_owned(name)
        ]

    def hint(self, env: Mapping[str, str]) -> str:
        """What to do next: export the missing variables (by name), or fix who asks for them."""
        missing = self.missing(env)
        steps = []
        if missing:
            steps.append(
                f"export {', '.join(missing)} where holon runs; holon run and holon-agent pass "
                "each to the engine and redact its value from everything holon writes"
            )
        if self.refused:
            steps.append(
                "add a workspace skill's variable to context.pass_env if you trust the "
                "workspace with it, or remove it from the skill's requires.env"
            )
        return "; ".join(steps) or "change the spec or the skill as the message says"
