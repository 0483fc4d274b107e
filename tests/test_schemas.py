"""The committed JSON Schemas are exactly what the models generate (regenerate: make schemas)."""

from __future__ import annotations

from pathlib import Path

import pytest

from holon_core.cli.main import main
from holon_core.cli.schema_cmd import render

SCHEMAS = Path(__file__).resolve().parents[1] / "schemas"


@pytest.mark.parametrize("name", ["spec", "manifest", "cassette"])
def test_committed_schema_is_fresh(name):
    committed = (SCHEMAS / f"{name}.schema.json").read_text()
    assert committed == render(name), f"schemas/{name}.schema.json is stale: run `make schemas`"


def test_schema_cli_prints_it(capsys):
    assert main(["schema", "manifest"]) == 0
    assert '"outcome"' in capsys.readouterr().out
