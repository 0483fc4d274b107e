"""``holon schema spec|manifest|cassette``: print the JSON Schema generated from the models."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import BaseModel

SCHEMA_IDS = {
    "spec": "https://holon.dev/schemas/spec.schema.json",
    "manifest": "https://holon.dev/schemas/manifest.schema.json",
    "cassette": "https://holon.dev/schemas/cassette.schema.json",
}


def schema_for(name: str) -> dict[str, Any]:
    if name == "cassette":
        from holon_core.cassette.format import schema as cassette_schema

        schema = cassette_schema()
    else:  # imported here: every `holon` command builds this module's parser
        from holon_core.models.manifest import Manifest
        from holon_core.models.spec_schema import Spec

        model: type[BaseModel] = Spec if name == "spec" else Manifest
        schema = model.model_json_schema()
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_IDS[name],
        **schema,
    }


def render(name: str) -> str:
    return json.dumps(schema_for(name), indent=2, sort_keys=True) + "\n"


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "schema", help="print the JSON Schema of spec.yaml, manifest.json or a cassette"
    )
    parser.add_argument("which", choices=sorted(SCHEMA_IDS))


def run(args: argparse.Namespace) -> int:
    print(render(args.which), end="")
    return 0
