"""Validate ``publish-intent.json`` against ``publish-intent.schema.json`` (stdlib only).

Implements exactly the JSON Schema keywords that schema uses (type, const, required,
additionalProperties, properties, items, minLength, maxLength, pattern, minimum,
dependentRequired); the tests check it agrees with a full validator.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ghlib import Fail, read_json

SCHEMA = Path(__file__).resolve().parent.parent / "publish-intent.schema.json"
_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "integer": (int,),
    "boolean": (bool,),
}


def problems(value: Any, schema: dict[str, Any], where: str = "intent") -> list[str]:
    """Every way ``value`` breaks ``schema``, each naming the field."""
    kind = schema.get("type")
    if kind is not None:
        ok = isinstance(value, _TYPES[kind])
        if kind == "integer" and isinstance(value, bool):
            ok = False
        if not ok:
            return [f"{where} must be {'an' if kind[0] in 'aeiou' else 'a'} {kind}"]
    if "const" in schema and value != schema["const"]:
        return [f"{where} must be {schema['const']!r}"]
    found: list[str] = []
    if isinstance(value, dict):
        found += _object(value, schema, where)
    if isinstance(value, list) and "items" in schema:
        for index, item in enumerate(value):
            found += problems(item, schema["items"], f"{where}[{index}]")
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 0):
            found.append(f"{where} must not be empty")
        if len(value) > schema.get("maxLength", len(value)):
            found.append(f"{where} is longer than {schema['maxLength']} characters")
        if "pattern" in schema and not re.search(schema["pattern"], value):
            found.append(f"{where} {value[:80]!r} does not match {schema['pattern']}")
    minimum = schema.get("minimum")
    number = isinstance(value, int) and not isinstance(value, bool)
    if number and minimum is not None and value < minimum:
        found.append(f"{where} must be at least {minimum}")
    return found


def _object(value: dict[str, Any], schema: dict[str, Any], where: str) -> list[str]:
    found = [f"{where}.{key} is missing" for key in schema.get("required", []) if key not in value]
    props: dict[str, Any] = schema.get("properties", {})
    if schema.get("additionalProperties") is False:
        found += [f"{where}.{key} is not a known field" for key in value if key not in props]
    for key, sub in props.items():
        if key in value:
            found += problems(value[key], sub, f"{where}.{key}")
    for key, needs in schema.get("dependentRequired", {}).items():
        if key in value:
            found += [f"{where}.{key} needs {where}.{need}" for need in needs if need not in value]
    return found


def load_intent(path: Path) -> dict[str, Any]:
    """The intent file, valid, or a ``Fail`` listing every problem."""
    intent = read_json(path, "the publish intent")
    found = problems(intent, read_json(SCHEMA, "the intent schema"))
    if found:
        listed = "; ".join(found[:10])
        raise Fail(f"{path} is not a valid publish intent: {listed} (see {SCHEMA.name})")
    assert isinstance(intent, dict)
    return intent
