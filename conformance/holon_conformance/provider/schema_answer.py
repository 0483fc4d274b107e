"""Answer a structured-output side call with the smallest value its JSON schema accepts.

The CLIs validate these answers (Gemini's router rejects ``complexity_score: 0`` and falls
back to another model), so the value is built from the schema instead of being hard-coded.
Integers start at 1 (or the schema's minimum) because zero is the value most often refused.
"""

from __future__ import annotations

from typing import Any

#: Enum values preferred when a schema offers them: hand the turn back to the user.
_PREFERRED_ENUM = ("user", "low", "simple")


def _type_of(schema: dict[str, Any]) -> str:
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if str(k).lower() != "null"), "null")
    if kind is None:
        if "properties" in schema:
            return "object"
        if "items" in schema:
            return "array"
        if "enum" in schema:
            return "enum"
        return "string"
    return str(kind).lower()


def _number(schema: dict[str, Any], integer: bool) -> int | float:
    value: float = 1
    if "minimum" in schema:
        value = max(value, float(schema["minimum"]))
    if "exclusiveMinimum" in schema and isinstance(schema["exclusiveMinimum"], int | float):
        value = max(value, float(schema["exclusiveMinimum"]) + 1)
    if "maximum" in schema:
        value = min(value, float(schema["maximum"]))
    return int(value) if integer else value


def value_for(schema: Any, depth: int = 0) -> Any:
    """A value valid against ``schema`` (the common subset the CLIs use)."""
    if not isinstance(schema, dict) or depth > 20:
        return None
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        options = list(schema["enum"])
        return next((v for v in _PREFERRED_ENUM if v in options), options[0])
    for combinator in ("anyOf", "oneOf", "allOf"):
        if schema.get(combinator):
            return value_for(schema[combinator][0], depth + 1)
    kind = _type_of(schema)
    if kind == "object":
        props = schema.get("properties") or {}
        return {name: value_for(sub, depth + 1) for name, sub in props.items()}
    if kind == "array":
        count = int(schema.get("minItems", 0))
        return [value_for(schema.get("items", {}), depth + 1) for _ in range(count)]
    if kind == "integer":
        return _number(schema, integer=True)
    if kind == "number":
        return _number(schema, integer=False)
    if kind == "boolean":
        return False
    if kind == "null":
        return None
    minimum = int(schema.get("minLength", 0))
    text = "scripted"
    return text if len(text) >= minimum else text.ljust(minimum, "x")
