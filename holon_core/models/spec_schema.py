"""The task spec's published schema (``holon schema spec``, ``schemas/spec.schema.json``).

The pydantic model of ``spec.yaml``: the JSON Schema users validate against, built only when
asked for. A run reads a spec through :mod:`holon_core.spec.rules` into the plain classes of
:mod:`holon_core.models.spec`; ``tests/fuzz/test_fuzz_spec_rules.py`` holds the three to the
same fields, verdict and dump. Unknown fields are allowed (``extra="allow"``).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from holon_core.skill.env_rules import context_env_problems, pass_env_problems
from holon_core.spec.durations import parse_duration
from holon_core.untrusted.relative import leaves_root


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)


class Metadata(_Open):
    name: str | None = None
    id: str | None = None
    skills: list[str] = Field(default_factory=list, description="Skill names or directories.")


class Context(_Open):
    workspace: str | None = None
    files: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(
        default_factory=dict, description="Plain settings for the engine; never secrets."
    )
    pass_env: list[str] = Field(
        default_factory=list,
        description="Variables copied from holon-agent's environment into the engine's, "
        "redacted like credentials (RFC-0002 3.1: secrets stay out of the spec).",
    )

    @field_validator("env")
    @classmethod
    def _no_secrets(cls, value: dict[str, str]) -> dict[str, str]:
        problems = context_env_problems(value)
        if problems:
            raise ValueError("; ".join(problems))
        return value

    @field_validator("pass_env")
    @classmethod
    def _names(cls, value: list[str]) -> list[str]:
        problems = pass_env_problems(value)
        if problems:
            raise ValueError("; ".join(problems))
        return list(dict.fromkeys(value))


class Goal(_Open):
    description: str
    issue_id: str | None = None


class Artifact(_Open):
    path: str
    required: bool = False

    @field_validator("path")
    @classmethod
    def _relative(cls, value: str) -> str:
        if leaves_root(value):
            raise ValueError("must be a path relative to the output directory")
        return value


class Output(_Open):
    artifacts: list[Artifact] = Field(default_factory=list)


class Budget(_Open):
    """Limits the model gateway enforces on the run's model calls (docs/gateway.md)."""

    # strict: the same verdict as holon_core/spec/rules.py (no "2.5" strings, no booleans)
    max_cost_usd: float | None = Field(
        default=None,
        gt=0,
        strict=True,
        description="Spend at most this many US dollars on model calls.",
    )
    max_tokens: int | None = Field(
        default=None, ge=1, strict=True, description="Input + output tokens over all model calls."
    )
    max_model_calls: int | None = Field(default=None, ge=1, strict=True, description="Model calls.")


class Network(_Open):
    """What the engine's room may reach besides the model (docs/sandbox.md)."""

    allow: list[str] = Field(
        default_factory=list,
        description="Hosts the room's egress proxy lets through: HOST, HOST:PORT, "
        "*.DOMAIN[:PORT] or an IP address (added to --allow-host / HOLON_ALLOW_HOSTS).",
    )


class Constraints(_Open):
    timeout: str | float | None = Field(default=None, description="Wall clock, e.g. 90s or 10m.")
    max_steps: int | None = Field(default=None, ge=1)
    budget: Budget | None = None
    network: Network | None = None

    @field_validator("timeout")
    @classmethod
    def _duration(cls, value: str | float | None) -> str | float | None:
        if value is not None:
            parse_duration(value)
        return value


class EngineChoice(_Open):
    """Optional engine preferences; flags and HOLON_ENGINE/HOLON_MODEL take precedence."""

    name: str | None = None
    model: str | None = None


class Spec(_Open):
    """A holon task: what to do, with which context, producing which artifacts."""

    version: Literal["v1"]
    kind: Literal["Holon"]
    metadata: Metadata = Field(default_factory=Metadata)
    context: Context = Field(default_factory=Context)
    goal: str | Goal
    output: Output = Field(default_factory=Output)
    constraints: Constraints = Field(default_factory=Constraints)
    engine: EngineChoice = Field(default_factory=EngineChoice)

    @field_validator("goal")
    @classmethod
    def _goal_says_something(cls, value: str | Goal) -> str | Goal:
        text = value if isinstance(value, str) else value.description
        if not text.strip():
            raise ValueError("the goal is empty; say what the engine should do")
        return value
