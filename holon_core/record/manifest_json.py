"""``manifest.json``'s text from the dict holon assembled, without pydantic.

What the published model (:mod:`holon_core.models.manifest`) did when it wrote the file, from
its generated shape (:mod:`holon_core.record.manifest_shape`): each object's fields in the
model's order with its defaults filled in, then the object's other keys; fields that are None
left out; the model's own rules checked (required fields, ``duration`` like ``12.5s``,
``artifacts`` relative, an ``error`` on failure). Importing pydantic and building the model
cost a short run about a third of its CPU. ``tests/test_manifest_shape.py`` holds this to the
model's text on real records.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

from holon_core.record.manifest_shape import DURATION, OUTCOMES, REQUIRED, SHAPE, STATUSES
from holon_core.untrusted.relative import leaves_root

_DURATION = re.compile(DURATION)


class ManifestInvalid(ValueError):
    """holon's own manifest breaks the published model: a bug, said as such."""


def manifest_text(data: dict[str, Any]) -> str:
    """The file's text: the shaped manifest, two-space indented, UTF-8 kept as is."""
    return json.dumps(shaped_manifest(data), indent=2, ensure_ascii=False) + "\n"


def shaped_manifest(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` in the model's order with its defaults, None left out, its rules checked."""
    manifest = _shaped(data, SHAPE, "manifest")
    if manifest["status"] not in STATUSES or manifest["outcome"] not in OUTCOMES:
        raise ManifestInvalid(f"status {manifest['status']!r} / outcome {manifest['outcome']!r}")
    if not isinstance(manifest["duration"], str) or not _DURATION.match(manifest["duration"]):
        raise ManifestInvalid('duration must look like "12.5s"')
    for path in manifest["artifacts"]:
        if not isinstance(path, str) or leaves_root(path):
            raise ManifestInvalid(f"artifact {path!r} must be relative to the output directory")
    if manifest["outcome"] == "failure" and not manifest.get("error"):
        raise ManifestInvalid("error is required when outcome is failure")
    return manifest


def _shaped(value: Any, shape: dict[str, Any], where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ManifestInvalid(f"{where} must be an object, not {type(value).__name__}")
    out: dict[str, Any] = {}
    for name, (default, inner) in shape.items():
        if name in value:
            item = value[name]
        elif default == REQUIRED:
            raise ManifestInvalid(f"{where}.{name} is required")
        else:
            item = copy.deepcopy(default)
        if inner is not None and isinstance(item, list):
            item = [_shaped(x, inner, f"{where}.{name}[]") for x in item]
        elif inner is not None and item is not None:
            item = _shaped(item, inner, f"{where}.{name}")
        if item is not None:
            out[name] = item
    out.update((k, v) for k, v in value.items() if k not in shape and v is not None)
    return out
