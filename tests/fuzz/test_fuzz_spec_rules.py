"""The spec rules (:mod:`holon_core.spec.rules`, pydantic-free: the run and the probe check a
spec with them), the plain classes a run builds from an accepted spec
(:mod:`holon_core.models.spec`) and the published schema's pydantic model
(:mod:`holon_core.models.spec_schema`) never disagree: a spec the rules accept is one the
model accepts (else the probe would pass what a user's schema check refuses), and the run's
spec is the model's, field for field. The rules may be stricter than the model's lax coercions
(``max_steps: "5"``, ``timeout: true``).

Budget: :data:`holon_core.testing.fuzz.FUZZ`.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from holon_core.models import spec as run_models
from holon_core.models import spec_schema as spec_models
from holon_core.models.spec_schema import Spec
from holon_core.spec import rules
from holon_core.spec.rules import check_fields
from holon_core.testing.fuzz import FUZZ, json_values, mutated

FULL: dict[str, Any] = {
    "version": "v1",
    "kind": "Holon",
    "metadata": {"name": "n", "id": "i", "skills": ["s"]},
    "context": {"workspace": "w", "files": ["f"], "env": {"A": "b"}, "pass_env": ["TOKEN_X"]},
    "goal": {"description": "d", "issue_id": "1"},
    "output": {"artifacts": [{"path": "r.md", "required": True}, {"path": "x/y.json"}]},
    "constraints": {
        "timeout": "10m",
        "max_steps": 3,
        "budget": {"max_cost_usd": 2.5, "max_tokens": 1000, "max_model_calls": 5},
        "network": {"allow": ["example.com", "*.pypi.org:443"]},
    },
    "engine": {"name": "replay", "model": "m"},
}
SAMPLES = [FULL, {"version": "v1", "kind": "Holon", "goal": "do it"}]
#: Values each field's rule must judge as the model does (edges of the model's types).
EDGES: st.SearchStrategy[Any] = st.sampled_from(
    [None, True, False, 0, 1, -1, 2.5, 1.0, "", " ", "5", "10m", "v1", "Holon", [], ["a"], {}]
)


@st.composite
def specs(draw: st.DrawFn) -> dict[str, Any]:
    """A valid spec with a few values swapped (arbitrary JSON or edge values) or removed."""
    spec = copy.deepcopy(draw(mutated(SAMPLES)))  # never change the samples themselves
    for _ in range(draw(st.integers(min_value=0, max_value=2))):
        section = draw(st.sampled_from(sorted(FULL)))
        inner = FULL[section]
        if isinstance(inner, dict) and isinstance(spec.get(section), dict):
            key = draw(st.sampled_from(sorted(inner)))
            spec[section] = {**spec[section], key: draw(EDGES | json_values(4))}
        else:
            spec[section] = draw(EDGES | json_values(4))
    return spec


@FUZZ
@given(spec=specs())
def test_a_spec_the_rules_accept_builds(spec: dict[str, Any]) -> None:
    found = check_fields(spec)
    try:
        model = Spec.model_validate(spec)
    except ValidationError as exc:
        assert found.problems, f"the rules accept what the model refuses: {exc}"
        return
    if not found.problems:  # the run's spec is the model's
        built = run_models.Spec.from_mapping(spec)
        assert built.to_dict() == model.model_dump(mode="json", exclude_none=True)
        assert list(built.to_dict()) == list(model.model_dump(mode="json", exclude_none=True))
        assert built.to_dict(exclude_none=False) == model.model_dump()
        assert built.goal_text == (
            spec["goal"] if isinstance(spec["goal"], str) else spec["goal"]["description"]
        )


@pytest.mark.parametrize(
    ("section", "value"),
    [
        ("constraints", {"timeout": True}),
        ("constraints", {"max_steps": "5"}),
        ("constraints", {"max_steps": True}),
        ("output", {"artifacts": [{"path": "a", "required": "yes"}]}),
    ],
)
def test_the_rules_refuse_what_only_lax_coercion_accepts(section: str, value: Any) -> None:
    spec = {**SAMPLES[1], section: value}
    Spec.model_validate(spec)  # the model's lax mode takes it
    assert check_fields(spec).problems  # holon refuses it, on both paths


def test_the_rules_know_every_field_the_model_has() -> None:
    """A field the model builds but the rules do not know was warned about as "unknown ...
    ignored" while the run used it (``constraints.network`` did: the proxy allowed its hosts)."""
    sections = {
        name: rule for name, rule in rules.SPEC.rules.items() if isinstance(rule, rules.Fields)
    }
    pairs: dict[type[BaseModel], rules.Fields] = {
        spec_models.Spec: rules.SPEC,
        spec_models.Metadata: sections["metadata"],
        spec_models.Context: sections["context"],
        spec_models.Output: sections["output"],
        spec_models.Constraints: sections["constraints"],
        spec_models.EngineChoice: sections["engine"],
        spec_models.Goal: rules.GOAL,
        spec_models.Artifact: rules.ARTIFACT,
        spec_models.Budget: rules.BUDGET,
        spec_models.Network: rules.NETWORK,
    }
    models = {
        value
        for value in vars(spec_models).values()
        if isinstance(value, type) and issubclass(value, BaseModel) and value.model_fields
    }
    assert models == set(pairs), "pair every model of holon_core.models.spec_schema with its rule"
    for model, fields in pairs.items():
        assert set(model.model_fields) == set(fields.rules), model.__name__
        run_class = getattr(run_models, model.__name__)  # the run's class of the same name
        run_fields = [f.name for f in dataclasses.fields(run_class) if f.name != "extra"]
        assert sorted(run_fields) == sorted(model.model_fields), model.__name__
        required = {name for name, info in model.model_fields.items() if info.is_required()}
        assert required == set(fields.required), model.__name__
