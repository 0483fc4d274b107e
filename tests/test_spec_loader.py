from __future__ import annotations

import pytest

from holon_core.errors import SpecError
from holon_core.spec.load import load_spec

SPEC = """version: "v1"
kind: Holon
metadata:
  name: demo
goal:
  description: Fix the bug
  issue_id: "42"
output:
  artifacts:
    - path: diff.patch
      required: true
constraints:
  timeout: 10m
  max_steps: 12
"""


def test_full_spec(tmp_path):
    path = tmp_path / "spec.yaml"
    path.write_text(SPEC)
    spec, warnings = load_spec(path)
    assert spec.goal_text == "Fix the bug"
    assert not isinstance(spec.goal, str) and spec.goal.issue_id == "42"
    assert spec.constraints.timeout_seconds == 600 and spec.constraints.max_steps == 12
    assert spec.output.artifacts[0].required and warnings == []


def test_string_goal_and_unknown_nested_field(tmp_path):
    path = tmp_path / "spec.yaml"
    path.write_text('version: "v1"\nkind: Holon\ngoal: do it\nconstraints:\n  priority: 3\n')
    spec, warnings = load_spec(path)
    assert spec.goal_text == "do it"
    assert warnings == [f"{path}:5: unknown field 'constraints.priority' ignored"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('version: "v1"\nkind: Holon\n', "field 'goal': Field required"),
        (
            'version: "v1"\nkind: Holon\ngoal: x\noutput:\n  artifacts:\n    - path: /etc/x\n',
            "spec.yaml:6: field 'output.artifacts[0].path'",
        ),
        ("- a list\n", "must be a YAML mapping"),
    ],
)
def test_errors_name_file_line_and_field(tmp_path, text, expected):
    path = tmp_path / "spec.yaml"
    path.write_text(text)
    with pytest.raises(SpecError) as info:
        load_spec(path)
    assert expected in str(info.value)
