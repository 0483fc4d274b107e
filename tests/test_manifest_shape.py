"""holon-agent writes ``manifest.json`` without pydantic (``record/manifest_json.py``, from the
generated ``record/manifest_shape.py``): the same fields, order, defaults and refusals as the
published model, which stays the schema users validate against."""

from __future__ import annotations

import copy
import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from holon_core.models.manifest import Manifest
from holon_core.record import manifest_shape
from holon_core.record.manifest_json import ManifestInvalid, manifest_text, shaped_manifest
from holon_core.record.manifest_shape import SHAPE

ROOT = Path(__file__).resolve().parents[1]

#: A record with every object of the model in it, some fields left to their defaults.
FULL: dict[str, Any] = {
    "status": "completed",
    "outcome": "failure",
    "duration": "12.5s",
    "artifacts": ["diff.patch", "manifest.json", "out/report.md"],
    "error": "the model said no: \u00e9t\u00e9 \u2603",
    "pr_url": "https://example.com/pr/1",
    "metadata": {
        "holon_version": "0.1.0",
        "reason": "budget_exceeded",
        "adapter": {"name": "claude", "version": "0.1.0"},
        "engine": {"name": "claude", "version": "2.0.1", "model": "m"},
        "usage": {
            "input_tokens": 10,
            "output_tokens": 2,
            "source": "gateway",
            "models": [{"model": "m", "input_tokens": 10, "calls": 1, "cost_usd": 0.5}],
            "reported": {"input_tokens": 9},
        },
        "cost": {"usd": 0, "prices": {"library": "l", "version": "1", "data": "d"}},
        "gateway": {"state": "on", "api": "anthropic-messages"},
        "budget": {"max_cost_usd": 1, "spent": {"tokens": 3}, "session": {"spent": {}}},
        "skills": [
            {"name": "s", "source": "builtin"},
            {"name": "t", "source": "path", "staging": "native"},
        ],
        "baseline": {"kind": "git", "head": "abc", "dirty": False},
        "checks": [{"name": "credentials", "ok": True}, {"name": "x", "ok": False, "hint": "h"}],
        "tools": {"calls": 3, "failed_commands": [{"command": "make", "exit_code": 2}]},
        "secrets_in_changes": [],
        "warnings": ["w"],
        "custom": {"kept": None},
        "dropped": None,
    },
}


def _generator() -> Any:
    spec = importlib.util.spec_from_file_location(
        "manifest_shape", ROOT / "scripts/manifest_shape.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_generated_shape_is_the_models() -> None:
    generator = _generator()
    assert generator.shape(Manifest) == SHAPE, "run: uv run python scripts/manifest_shape.py"
    for name, value in generator.rules().items():
        assert getattr(manifest_shape, name) == value, name


@pytest.mark.parametrize("outcome", ["failure", "success"])
def test_a_full_record_is_written_as_the_model_writes_it(outcome: str) -> None:
    data = {**copy.deepcopy(FULL), "outcome": outcome}
    model = Manifest.model_validate(data)
    assert shaped_manifest(data) == model.model_dump(mode="json", exclude_none=True)
    text = manifest_text(data)
    assert json.loads(text) == json.loads(model.to_json())
    assert list(json.loads(text)) == list(json.loads(model.to_json()))  # the same key order
    assert list(json.loads(text)["metadata"]) == list(json.loads(model.to_json())["metadata"])
    assert "\u00e9t\u00e9 \u2603" in text  # UTF-8 kept, as the model writes it


BROKEN = {
    "no holon_version": lambda d: d["metadata"].pop("holon_version"),
    "no status": lambda d: d.pop("status"),
    "odd duration": lambda d: d.update(duration="12 s"),
    "absolute artifact": lambda d: d["artifacts"].append("/etc/passwd"),
    "artifact outside": lambda d: d["artifacts"].append("a/../../b"),
    "failure without error": lambda d: d.update(error=""),
    "engine without a name": lambda d: d["metadata"]["engine"].pop("name"),
    "check without ok": lambda d: d["metadata"]["checks"][0].pop("ok"),
    "unknown outcome": lambda d: d.update(outcome="maybe"),
    "metadata not an object": lambda d: d.update(metadata=[1]),
}


@pytest.mark.parametrize("breaks", list(BROKEN.values()), ids=list(BROKEN))
def test_what_the_model_refuses_is_refused(breaks: Any) -> None:
    data = copy.deepcopy(FULL)
    breaks(data)
    with pytest.raises(ValidationError):
        Manifest.model_validate(data)
    with pytest.raises(ManifestInvalid):
        shaped_manifest(data)
