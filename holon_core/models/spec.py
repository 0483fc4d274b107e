"""The task spec (``spec.yaml``, RFC-0001/0002 ``version: v1``, ``kind: Holon``) as a run uses it.

Plain dataclasses, built from a mapping :mod:`holon_core.spec.rules` accepted: every holon-agent
run loads a spec, and pydantic (its import and the models' build) was half of a short run's
CPU. The published schema is :mod:`holon_core.models.spec_schema` (pydantic, ``holon schema
spec``); ``tests/fuzz/test_fuzz_spec_rules.py`` holds the rules, these classes and that model to
the same fields, the same verdict and the same dump on every spec.

Unknown fields are kept (``extra``) so a newer spec still loads; the loader warns about them
instead of failing, which keeps old agents forward compatible.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Self

from holon_core.spec.durations import parse_duration


def _split(data: Mapping[str, Any], cls: type) -> tuple[dict[str, Any], dict[str, Any]]:
    """``data``'s known fields (those of ``cls``) and the rest, the unknown ones."""
    known = {f.name for f in dataclasses.fields(cls)} - {"extra"}
    mine = {k: v for k, v in data.items() if k in known}
    return mine, {k: v for k, v in data.items() if k not in known}


def _number(value: Any) -> Any:
    """A whole number as a float (never a boolean)."""
    return float(value) if isinstance(value, int) and not isinstance(value, bool) else value


class _Open:
    """What every section shares: the unknown fields it kept, how it is built from a mapping,
    and a dump like the model's."""

    extra: dict[str, Any]
    #: Fields holding a section (a mapping) or a list of them, and that section's class.
    _sections: ClassVar[dict[str, type[_Open]]] = {}
    #: Fields the schema types as float: a whole number given there becomes one, as the
    #: model makes it (``timeout: 90``, ``max_cost_usd: 2``).
    _floats: ClassVar[tuple[str, ...]] = ()

    if TYPE_CHECKING:  # each section is a dataclass, its fields its keyword arguments

        def __init__(self, **fields: Any) -> None: ...

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> Self:
        """The section of a mapping the rules accepted (:func:`holon_core.spec.rules.
        check_fields`; not checked again here): known fields, the rest kept in ``extra``."""
        known, extra = _split(data, cls)
        for name, section in cls._sections.items():
            value = known.get(name)
            if isinstance(value, Mapping):
                known[name] = section.from_mapping(value)
            elif isinstance(value, list):
                known[name] = [section.from_mapping(item) for item in value]
        for name in cls._floats:
            if name in known:
                known[name] = _number(known[name])
        return cls(**known, extra=extra)

    def to_dict(self, *, exclude_none: bool = True) -> dict[str, Any]:
        """The section as JSON-ready data: known fields in order, then the unknown ones; with
        ``exclude_none``, fields that are None are left out (not inside unknown values)."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            if f.name != "extra":
                out[f.name] = _dump(getattr(self, f.name), exclude_none)
        out.update(self.extra)
        return {k: v for k, v in out.items() if v is not None} if exclude_none else out


def _dump(value: Any, exclude_none: bool) -> Any:
    if isinstance(value, _Open):
        return value.to_dict(exclude_none=exclude_none)
    if isinstance(value, list):
        return [_dump(item, exclude_none) for item in value]
    if isinstance(value, dict):
        return dict(value)
    return value


@dataclass(frozen=True)
class Metadata(_Open):
    name: str | None = None
    id: str | None = None
    skills: list[str] = field(default_factory=list)  #: skill names or directories
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Context(_Open):
    workspace: str | None = None
    files: list[str] = field(default_factory=list)
    #: plain settings for the engine; never secrets
    env: dict[str, str] = field(default_factory=dict)
    #: variables copied from holon-agent's environment into the engine's, redacted like
    #: credentials (RFC-0002 3.1: secrets stay out of the spec)
    pass_env: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> Self:
        if "pass_env" in data:  # a name given twice is passed once
            data = {**data, "pass_env": list(dict.fromkeys(data["pass_env"]))}
        return super().from_mapping(data)


@dataclass(frozen=True)
class Goal(_Open):
    description: str
    issue_id: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Artifact(_Open):
    path: str
    required: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Output(_Open):
    artifacts: list[Artifact] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    _sections: ClassVar[dict[str, type[_Open]]] = {"artifacts": Artifact}


@dataclass(frozen=True)
class Budget(_Open):
    """Limits the model gateway enforces on the run's model calls (docs/gateway.md)."""

    max_cost_usd: float | None = None  #: US dollars over all model calls
    max_tokens: int | None = None  #: input + output tokens over all model calls
    max_model_calls: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    _floats: ClassVar[tuple[str, ...]] = ("max_cost_usd",)


@dataclass(frozen=True)
class Network(_Open):
    """What the engine's room may reach besides the model (docs/sandbox.md)."""

    #: hosts the room's egress proxy lets through: HOST, HOST:PORT, *.DOMAIN[:PORT] or an IP
    #: address (added to --allow-host / HOLON_ALLOW_HOSTS)
    allow: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Constraints(_Open):
    timeout: str | float | None = None  #: wall clock, e.g. 90s or 10m
    max_steps: int | None = None
    budget: Budget | None = None
    network: Network | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    _sections: ClassVar[dict[str, type[_Open]]] = {"budget": Budget, "network": Network}
    _floats: ClassVar[tuple[str, ...]] = ("timeout",)

    @property
    def timeout_seconds(self) -> float | None:
        return None if self.timeout is None else parse_duration(self.timeout)


@dataclass(frozen=True)
class EngineChoice(_Open):
    """Optional engine preferences; flags and HOLON_ENGINE/HOLON_MODEL take precedence."""

    name: str | None = None
    model: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)  # keywords only: the fields in the schema's order
class Spec(_Open):
    """A holon task: what to do, with which context, producing which artifacts."""

    version: Literal["v1"]
    kind: Literal["Holon"]
    metadata: Metadata = field(default_factory=Metadata)
    context: Context = field(default_factory=Context)
    goal: str | Goal  # text, or a mapping with a description
    output: Output = field(default_factory=Output)
    constraints: Constraints = field(default_factory=Constraints)
    engine: EngineChoice = field(default_factory=EngineChoice)
    extra: dict[str, Any] = field(default_factory=dict)
    _sections: ClassVar[dict[str, type[_Open]]] = {
        "metadata": Metadata,
        "context": Context,
        "goal": Goal,
        "output": Output,
        "constraints": Constraints,
        "engine": EngineChoice,
    }

    @property
    def goal_text(self) -> str:
        return self.goal if isinstance(self.goal, str) else self.goal.description
