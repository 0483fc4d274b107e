"""Load ``spec.yaml`` with errors that name the file, the line and the field.

Validation is the pydantic model's; this module adds YAML line numbers to its errors and
collects unknown fields so the caller can warn about them (forward compatibility).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from holon_core import yaml_safe
from holon_core.errors import SpecError
from holon_core.models.spec import SUPPORTED_KINDS, SUPPORTED_VERSIONS, Spec
from holon_core.quoting import clip, shorten
from holon_core.spec_file import MAX_SPEC_BYTES, read_spec_text

__all__ = ["MAX_SPEC_BYTES", "load_spec", "read_spec_text"]

Location = tuple[str | int, ...]


def load_spec(path: Path) -> tuple[Spec, list[str]]:
    """The validated spec and a list of unknown-field warnings."""
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
    try:
        spec = Spec.model_validate(data)
    except ValidationError as exc:
        raise SpecError(_describe(exc, path, node), hint=_hint(exc)) from None
    return spec, [
        f"{path}:{_line(node, loc)}: unknown field {clip(_dotted(loc))} ignored"
        for loc in _unknown_fields(spec, ())
    ]


def _describe(exc: ValidationError, path: Path, node: yaml.Node | None) -> str:
    problems = []
    for error in exc.errors():
        loc = tuple(part for part in error["loc"] if not _is_union_tag(part))
        field = _dotted(loc) or "(root)"
        message = error["msg"].removeprefix("Value error, ")  # our own rule's sentence
        if loc == ("version",):
            message = f"unsupported version; expected one of {', '.join(SUPPORTED_VERSIONS)}"
        elif loc == ("kind",):
            message = f"unsupported kind; expected one of {', '.join(SUPPORTED_KINDS)}"
        problems.append(f"{path}:{_line(node, loc)}: field {field!r}: {message}")
    unique = list(dict.fromkeys(problems))
    return unique[0] if len(unique) == 1 else "invalid spec:\n  " + "\n  ".join(unique)


def _hint(exc: ValidationError) -> str:
    fields = {str(error["loc"][0]) for error in exc.errors() if error["loc"]}
    if "version" in fields or "kind" in fields:
        return 'start the spec with version: "v1" and kind: Holon'
    return "compare the spec with `holon schema spec`"


def _is_union_tag(part: str | int) -> bool:
    return isinstance(part, str) and part in {"str", "Goal", "float", "int"}


def _dotted(loc: Location) -> str:
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


def _unknown_fields(model: BaseModel, prefix: Location) -> list[Location]:
    found: list[Location] = [(*prefix, key) for key in (model.model_extra or {})]
    for name in type(model).model_fields:
        value: Any = getattr(model, name)
        if isinstance(value, BaseModel):
            found.extend(_unknown_fields(value, (*prefix, name)))
        elif isinstance(value, list):
            for index, item in enumerate(value):
                if isinstance(item, BaseModel):
                    found.extend(_unknown_fields(item, (*prefix, name, index)))
    return found
