from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def manifest_schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads((ROOT / "schemas" / "manifest.schema.json").read_text())
    return schema


@pytest.fixture
def assert_valid_manifest(manifest_schema):
    def check(manifest: dict[str, Any] | None) -> dict[str, Any]:
        assert manifest is not None, "no manifest.json was written"
        jsonschema.validate(manifest, manifest_schema)
        return manifest

    return check
