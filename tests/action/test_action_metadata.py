"""action.yml against SchemaStore's published schema for GitHub Action metadata, the
workflows of docs/github-action.md against its workflow schema (both as check-jsonschema
vendors them, unpacked by ``make oracles``), and action.yml in step with the entry script:
every output it declares is one the script sets, every input reaches it, no script
interpolates an input."""

from __future__ import annotations

import json
import re
from typing import Any

import jsonschema
import yaml

from holon_core.action.entry import step_outputs
from holon_core.action.result import refused
from tests.oracles import ROOT, oracle_site

VENDOR = "check_jsonschema/builtin_schemas/vendor"


def schema(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(
        (oracle_site(f"{VENDOR}/{name}") / VENDOR / name).read_text()
    )
    return loaded


def action() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((ROOT / "action.yml").read_text())
    return loaded


def doc_workflows() -> list[dict[str, Any]]:
    """The workflows in the doc, read as GitHub reads them: ``on`` is a key, not YAML 1.1's
    boolean true (PyYAML's reading; check-jsonschema corrects it the same way)."""
    text = (ROOT / "docs" / "github-action.md").read_text()
    blocks = [yaml.safe_load(b) for b in re.findall(r"```yaml\n(.*?)```", text, re.DOTALL)]
    workflows = [b for b in blocks if isinstance(b, dict) and b.get("jobs")]
    for workflow in workflows:
        if True in workflow:
            workflow["on"] = workflow.pop(True)
    return workflows


def test_action_yml_is_valid_action_metadata():
    jsonschema.validate(action(), schema("github-actions.json"))


def test_the_schema_rejects_what_github_rejects():
    broken = action()
    broken["runs"]["using"] = "composite-ish"
    errors = list(jsonschema.Draft7Validator(schema("github-actions.json")).iter_errors(broken))
    assert errors


def test_the_documented_workflows_are_valid_workflows():
    workflows = doc_workflows()
    assert len(workflows) >= 2  # issue to PR, CI preflight
    for workflow in workflows:
        jsonschema.validate(workflow, schema("github-workflows.json"))


def test_the_outputs_are_the_ones_the_entry_sets():
    declared = action()["outputs"]
    assert set(declared) == set(step_outputs(refused("x", "y")))
    for name, output in declared.items():
        assert output["value"] == f"${{{{ steps.run.outputs.{name} }}}}"


def test_every_input_reaches_the_scripts_and_none_is_interpolated():
    meta = action()
    steps = meta["runs"]["steps"]
    env_values = " ".join(str(v) for s in steps for v in s.get("env", {}).values())
    with_values = " ".join(str(v) for s in steps for v in s.get("with", {}).values())
    for name in meta["inputs"]:
        assert f"inputs.{name} }}}}" in env_values + with_values, name
    for step in steps:
        assert "${{" not in step.get("run", ""), step.get("name")
    run = next(s for s in steps if s.get("id") == "run")
    assert run["run"] == "holon action run"
