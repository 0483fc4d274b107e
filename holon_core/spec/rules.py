"""The rules of ``spec.yaml``, pydantic-free: the one check a run and the probe both make.

``holon-agent`` refuses a spec here, before it builds the pydantic model
(:mod:`holon_core.models.spec`), and ``holon-agent --probe`` calls the same :func:`read_spec`,
so both refuse the same specs with the same message (naming the file, the line and the
field) without the probe paying for pydantic (its CPU goal is 5x ``python -c pass``; importing
pydantic and building the model alone costs about 10x). The model stays the published
schema and the object the run uses; ``tests/fuzz/test_fuzz_spec_rules.py`` holds the two to
the same verdict on every spec.

Unknown fields are not refused but returned as warnings (forward compatibility).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from holon_core.errors import SpecError
from holon_core.skill.env_rules import context_env_problems, pass_env_problems
from holon_core.spec.durations import parse_duration
from holon_core.spec.file import read_spec_text
from holon_core.untrusted import yaml_safe
from holon_core.untrusted.quoting import clip, shorten
from holon_core.untrusted.relative import leaves_root

SUPPORTED_VERSIONS = ("v1",)
SUPPORTED_KINDS = ("Holon",)

Location = tuple[str | int, ...]


@dataclass
class Findings:
    """What a walk over the spec found: problems (location, sentence) and unknown fields."""

    problems: list[tuple[Location, str]] = field(default_factory=list)
    unknown: list[Location] = field(default_factory=list)

    def add(self, loc: Location, message: str) -> None:
        self.problems.append((loc, message))


Rule = Callable[[Any, Location, Findings], None]


@dataclass(frozen=True)
class SpecDocument:
    """A spec that passed every rule: its mapping and the unknown-field warnings."""

    path: Path
    data: dict[str, Any]
    warnings: list[str]


def read_spec(path: Path) -> SpecDocument:
    """Read, parse and check ``path``; raises :class:`SpecError` naming file, line and field."""
    text = read_spec_text(path)
    try:
        data, node = yaml_safe.load_with_node(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        problem = shorten(getattr(exc, "problem", None) or str(exc), 300)
        hint = (
            "remove the deep nesting or alias expansion"
            if isinstance(exc, yaml_safe.YamlLimitError)
            else "fix the YAML syntax"
        )
        raise SpecError(f"{where}: invalid YAML: {problem}", hint=hint) from None
    if not isinstance(data, dict):
        raise SpecError(f"{path}: the spec must be a YAML mapping", hint="see `holon schema spec`")
    found = check_fields(data)
    if found.problems:
        lines = [
            f"{path}:{_line(node, loc)}: field {dotted(loc) or '(root)'!r}: {message}"
            for loc, message in found.problems
        ]
        unique = list(dict.fromkeys(lines))
        message = unique[0] if len(unique) == 1 else "invalid spec:\n  " + "\n  ".join(unique)
        raise SpecError(message, hint=_hint(found))
    warnings = [
        f"{path}:{_line(node, loc)}: unknown field {clip(dotted(loc))} ignored"
        for loc in found.unknown
    ]
    return SpecDocument(path, data, warnings)


def check_fields(data: dict[str, Any]) -> Findings:
    """Every rule over a parsed spec: the problems and the unknown fields."""
    found = Findings()
    SPEC(data, (), found)
    return found


def _hint(found: Findings) -> str:
    if any(loc[:1] in (("version",), ("kind",)) for loc, _ in found.problems):
        return 'start the spec with version: "v1" and kind: Holon'
    return "compare the spec with `holon schema spec`"


# --- the rules, one per kind of field


@dataclass(frozen=True)
class Fields:
    """A mapping with known fields (others are kept and warned about) and required ones."""

    rules: Mapping[str, Rule]
    required: tuple[str, ...] = ()

    def __call__(self, value: Any, loc: Location, found: Findings) -> None:
        if not isinstance(value, dict):
            found.add(loc, "must be a mapping")
            return
        for name in self.required:
            if name not in value:
                found.add((*loc, name), "Field required")
        for key, item in value.items():
            rule = self.rules.get(key) if isinstance(key, str) else None
            if rule is not None:
                rule(item, (*loc, key), found)
            elif isinstance(key, str):
                found.unknown.append((*loc, key))
            else:
                found.add((*loc, clip(key)), "a field name must be text")


def _one_of(*allowed: str, what: str) -> Rule:
    def rule(value: Any, loc: Location, found: Findings) -> None:
        if value not in allowed or not isinstance(value, str):
            found.add(loc, f"unsupported {what}; expected one of {', '.join(allowed)}")

    return rule


def _text(value: Any, loc: Location, found: Findings) -> None:
    if not isinstance(value, str):
        found.add(loc, "must be a string")


def _optional_text(value: Any, loc: Location, found: Findings) -> None:
    if value is not None:
        _text(value, loc, found)


def _texts(value: Any, loc: Location, found: Findings) -> None:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        found.add(loc, "must be a list of strings")


def _flag(value: Any, loc: Location, found: Findings) -> None:
    if not isinstance(value, bool):
        found.add(loc, "must be true or false")


def _goal(value: Any, loc: Location, found: Findings) -> None:
    if isinstance(value, dict):
        before = len(found.problems)
        GOAL(value, loc, found)
        if len(found.problems) > before:
            return
        value = value["description"]
    elif not isinstance(value, str):
        found.add(loc, "must be text, or a mapping with a description")
        return
    if not value.strip():
        found.add(loc, "the goal is empty; say what the engine should do")


def _artifact_path(value: Any, loc: Location, found: Findings) -> None:
    if not isinstance(value, str):
        found.add(loc, "must be a string")
    elif leaves_root(value):
        found.add(loc, "must be a path relative to the output directory")


def _artifacts(value: Any, loc: Location, found: Findings) -> None:
    if not isinstance(value, list):
        found.add(loc, "must be a list of artifacts (path, required)")
        return
    for index, item in enumerate(value):
        ARTIFACT(item, (*loc, index), found)


def _timeout(value: Any, loc: Location, found: Findings) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        found.add(loc, "must be a duration like 90s, 10m or 1h")
        return
    try:
        parse_duration(value)
    except ValueError as exc:
        found.add(loc, str(exc))


def _max_steps(value: Any, loc: Location, found: Findings) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        found.add(loc, "must be a whole number of at least 1")


def _positive_amount(value: Any, loc: Location, found: Findings) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        found.add(loc, "must be a positive number of US dollars, e.g. 2.5")


def _budget(value: Any, loc: Location, found: Findings) -> None:
    """``constraints.budget``: the model gateway's limits (docs/gateway.md)."""
    if value is not None:
        BUDGET(value, loc, found)


def _network(value: Any, loc: Location, found: Findings) -> None:
    """``constraints.network``: hosts the room's egress proxy lets through (docs/sandbox.md);
    what each entry may look like is the proxy policy's rule, checked when the run starts."""
    if value is not None:
        NETWORK(value, loc, found)


def _context_env(value: Any, loc: Location, found: Findings) -> None:
    if not isinstance(value, dict):
        found.add(loc, "context.env must be a mapping of NAME: value settings")
        return
    named = {k: v for k, v in value.items() if isinstance(k, str)}
    problems = [_not_a_name("context.env", k) for k in value if not isinstance(k, str)]
    problems += context_env_problems(named)
    for name, setting in named.items():
        if not isinstance(setting, str):
            found.add((*loc, name), "must be a string (a plain setting)")
    if problems:
        found.add(loc, "; ".join(problems))


def _pass_env(value: Any, loc: Location, found: Findings) -> None:
    if not isinstance(value, list):
        found.add(loc, "context.pass_env must be a list of names, e.g. pass_env: [GITHUB_TOKEN]")
        return
    problems = [_not_a_name("context.pass_env", n) for n in value if not isinstance(n, str)]
    problems += pass_env_problems([name for name in value if isinstance(name, str)])
    if problems:
        found.add(loc, "; ".join(problems))


def _not_a_name(where: str, value: object) -> str:
    """A YAML key or item that is not text (``1``, ``null``) is no variable name."""
    return f"{where}: {clip(str(value), 60)} is not a variable name"


GOAL = Fields({"description": _text, "issue_id": _optional_text}, required=("description",))
ARTIFACT = Fields({"path": _artifact_path, "required": _flag}, required=("path",))
BUDGET = Fields(
    {"max_cost_usd": _positive_amount, "max_tokens": _max_steps, "max_model_calls": _max_steps}
)
NETWORK = Fields({"allow": _texts})
SPEC = Fields(
    {
        "version": _one_of(*SUPPORTED_VERSIONS, what="version"),
        "kind": _one_of(*SUPPORTED_KINDS, what="kind"),
        "metadata": Fields({"name": _optional_text, "id": _optional_text, "skills": _texts}),
        "context": Fields(
            {
                "workspace": _optional_text,
                "files": _texts,
                "env": _context_env,
                "pass_env": _pass_env,
            }
        ),
        "goal": _goal,
        "output": Fields({"artifacts": _artifacts}),
        "constraints": Fields(
            {
                "timeout": _timeout,
                "max_steps": _max_steps,
                "budget": _budget,
                "network": _network,
            }
        ),
        "engine": Fields({"name": _optional_text, "model": _optional_text}),
    },
    required=("version", "kind", "goal"),
)


# --- where a field is in the file


def dotted(loc: Location) -> str:
    """``("output", "artifacts", 0, "path")`` -> ``output.artifacts[0].path``."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


def _line(node: yaml.Node | None, loc: Location) -> int:
    """1-based line of the deepest node that exists along ``loc``."""
    if node is None:
        return 1
    line = node.start_mark.line + 1
    current: yaml.Node = node
    for part in loc:
        child: yaml.Node | None = None
        if isinstance(current, yaml.MappingNode) and isinstance(part, str):
            for key, value in current.value:
                if key.value == part:
                    line = key.start_mark.line + 1
                    child = value
                    break
        elif (
            isinstance(current, yaml.SequenceNode)
            and isinstance(part, int)
            and 0 <= part < len(current.value)
        ):
            child = current.value[part]
            line = child.start_mark.line + 1
        if child is None:
            break
        current = child
    return line
