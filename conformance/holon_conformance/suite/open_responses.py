"""Open Responses validation: is a response object or a stream event what the spec's schema says?

The judge is ``openresponses-types`` (PyPI): pydantic models generated from the official
``public/openapi/openapi.json`` of openresponses/openresponses (its ``__spec_version__`` and
``__spec_hash__``, the sha256 of the file it was generated from, name the spec revision). It is
what a client generated from the spec does with holon's JSON: parse it into the spec's types.
Parsing is strict JSON mode, so a number in a string or a bool in an integer is an error too.

An event the spec does not define is an error by default: the spec lets a server send
extension events (a type prefixed with an implementor slug, ``holon:...``, with ``type`` and
``sequence_number``) and tells clients to ignore them, but the official compliance tester
parses every event against the spec's event union and fails the stream for one. With
``extensions=True`` such an event passes when it follows the extension rule.
"""

from __future__ import annotations

import enum
import json
import re
from typing import Any

import pydantic
from openresponses_types import __spec_hash__, __spec_version__
from openresponses_types import types as spec

#: The spec revision the models were generated from (shown in failure messages).
SPEC = f"Open Responses {__spec_version__} (openapi.json sha256 {__spec_hash__[:12]})"
#: ``acme:search_started``: an implementor slug, a colon, the event's own name.
EXTENSION_TYPE = re.compile(r"^[a-z0-9][a-z0-9_-]*:[A-Za-z0-9_.:-]+$")


def _event_models() -> dict[str, type[pydantic.BaseModel]]:
    """Every streaming event the spec defines, by its ``type`` value."""
    models: dict[str, type[pydantic.BaseModel]] = {}
    for name in dir(spec):
        model = getattr(spec, name)
        if not (name.endswith("StreamingEvent") and isinstance(model, type)):
            continue
        if not issubclass(model, pydantic.BaseModel):
            continue
        fields: dict[str, Any] = dict(model.model_fields)
        kind: object = fields["type"].annotation
        if isinstance(kind, type) and issubclass(kind, enum.Enum):  # a one-member enum
            models.update({member.value: model for member in kind})
    return models


EVENTS = _event_models()


def _errors(model: type[pydantic.BaseModel], value: object) -> list[str]:
    try:
        model.model_validate_json(json.dumps(value), strict=True)
    except pydantic.ValidationError as exc:
        return [
            f"{'.'.join(str(p) for p in error['loc']) or '(root)'}: {error['msg']}"
            for error in exc.errors(include_url=False)[:8]
        ]
    return []


def response_errors(response: object) -> list[str]:
    """Why ``response`` is not a valid ``ResponseResource`` (empty when it is)."""
    return _errors(spec.ResponseResource, response)


def event_errors(event: object, *, extensions: bool = False) -> list[str]:
    """Why ``event`` is not a valid streaming event (empty when it is); with ``extensions``,
    a slug-prefixed extension event is valid too."""
    if not isinstance(event, dict):
        return [f"an event must be a JSON object, got {type(event).__name__}"]
    kind = event.get("type")
    model = EVENTS.get(kind) if isinstance(kind, str) else None
    if model is not None:
        return _errors(model, event)
    if not extensions:
        return [
            f"type {kind!r} is no streaming event of the spec (the official compliance tester "
            "fails the whole stream for it)"
        ]
    if not isinstance(kind, str) or not EXTENSION_TYPE.match(kind):
        return [f"type {kind!r} is no event of the spec and not slug-prefixed (acme:name)"]
    number = event.get("sequence_number")
    if type(number) is not int:
        return [f"extension event {kind} has no integer sequence_number"]
    return []


def stream_errors(events: list[Any], *, extensions: bool = False) -> list[str]:
    """Every invalid event of a stream, each named by its position and type."""
    found = []
    for index, event in enumerate(events):
        kind = event.get("type") if isinstance(event, dict) else None
        errors = event_errors(event, extensions=extensions)
        found += [f"event {index} ({kind}): {error}" for error in errors]
    return found
