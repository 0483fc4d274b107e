"""Fuzz manifest read-back: the engine's manifest.json in the agent, the agent's in the runner.

Any bytes where a manifest should be give a result, never an untyped exception; whatever an
engine writes, merging it into holon's record still gives a valid manifest.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from holon_core.models.manifest import Manifest
from holon_core.models.spec import Spec
from holon_core.record.engine_manifest import merge_skill_manifest, read_skill_manifest
from holon_core.record.manifest_json import shaped_manifest
from holon_core.runner.validate import validate_output
from holon_core.testing.fuzz import FUZZ, json_values, mutated

HOLON: dict[str, Any] = {
    "status": "completed",
    "outcome": "success",
    "duration": "1.0s",
    "artifacts": ["diff.patch", "manifest.json"],
    "metadata": {"holon_version": "0.1.0", "reason": "ok", "warnings": ["w"]},
    "error": None,
}
ENGINE_SHAPED = [
    {"artifacts": ["report.md", {"path": "a.txt"}], "metadata": {"k": 1}, "extra": [1]},
    HOLON,
]


def _deep(depth: int) -> str:
    return '{"a": ' + "[" * depth + "]" * depth + "}"


def _huge(n: int) -> bytes:
    """Every field the runner quotes in a problem, each n characters long."""
    big = {"status": "s" * n, "outcome": ["o" * n], "duration": "d" * n}
    return json.dumps({**big, "artifacts": ["/" + "a" * n, {"p": "b" * n}]}).encode()


MANIFEST_BYTES = st.one_of(
    mutated(ENGINE_SHAPED).map(lambda d: json.dumps(d).encode()),
    st.integers(min_value=1000, max_value=100_000).map(_huge),
    json_values().map(lambda v: json.dumps(v).encode()),
    st.integers(min_value=10, max_value=200_000).map(lambda n: _deep(n).encode()),
    st.binary(max_size=200),
)


@FUZZ
@given(raw=MANIFEST_BYTES)
def test_engine_manifest_read_back_always_merges_into_a_valid_record(raw):
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "manifest.json").write_bytes(raw)
        engine = read_skill_manifest(Path(tmp))
    assert engine is None or isinstance(engine, dict)
    merged = merge_skill_manifest(json.loads(json.dumps(HOLON)), engine)
    manifest = Manifest.model_validate(merged)
    json.loads(manifest.to_json())
    # the agent writes it without pydantic, the same as the model would
    assert shaped_manifest(merged) == manifest.model_dump(mode="json", exclude_none=True)
    for name in manifest.artifacts:
        assert not name.startswith("/") and ".." not in name.split("/"), name


SPEC = Spec.from_mapping({"version": "v1", "kind": "Holon", "goal": "g"})


@FUZZ
@given(raw=MANIFEST_BYTES, exit_code=st.sampled_from([0, 1, 2, 3]))
def test_runner_validation_of_any_manifest_gives_a_verdict(raw, exit_code):
    with tempfile.TemporaryDirectory() as tmp:
        output = Path(tmp)  # no diff.patch: git is never asked, any workspace does
        (output / "manifest.json").write_bytes(raw)
        result = validate_output(output, SPEC, output, exit_code)
    assert result.ok or all(p.code and p.message for p in result.problems)
    assert all(len(p.message) < 8000 for p in result.problems), "messages quote a bounded amount"
