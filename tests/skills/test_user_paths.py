"""The two user paths of issue 13 through the real `holon` -> `holon-agent` -> replay engine:
`--skill ./myskill`, and the README's spec naming `my-skill`."""

from __future__ import annotations

from pathlib import Path

from tests.runner.kit import make_workspace, write_task

from .kit import holon, make_skill, manifest_of, skill_rows

README_SPEC = {
    "metadata": {"name": "fix-bug", "skills": ["my-skill"]},
    "output": {"artifacts": [{"path": "diff.patch", "required": True}]},
}


def test_flag_skill_by_relative_path(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", "plain")
    spec = write_task(tmp_path / "task", [{"say": "done"}])
    make_skill(tmp_path, "myskill", version="1.0.0")
    args = ["run", str(spec), "--workspace", str(ws), "--engine", "replay"]
    ran = holon(tmp_path, [*args, "--skill", "./myskill", "--json"], cwd=tmp_path)
    assert ran.exit_code == 0, ran.stdout + ran.stderr
    manifest = manifest_of(ran)
    assert skill_rows(manifest) == [("myskill", "flag")]
    record = manifest["metadata"]["skills"][0]
    assert record["version"] == "1.0.0" and len(record["sha256"]) == 64


def test_readme_spec_with_the_skill_in_the_user_layer(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", "git")
    spec = write_task(tmp_path / "task", [{"say": "done"}], extra=README_SPEC)
    make_skill(tmp_path / "config" / "holon" / "skills", "my-skill")
    args = ["run", str(spec), "--workspace", str(ws), "--engine", "replay", "--json"]
    ran = holon(tmp_path, args)
    assert ran.exit_code == 0, ran.stdout + ran.stderr
    assert skill_rows(manifest_of(ran)) == [("my-skill", "user")]


def test_readme_spec_without_the_skill_reports_the_agents_reason(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", "plain")
    spec = write_task(tmp_path / "task", [{"say": "done"}], extra=README_SPEC)
    args = ["run", str(spec), "--workspace", str(ws), "--engine", "replay", "--json"]
    ran = holon(tmp_path, args)
    result = ran.json
    assert (ran.exit_code, result["reason"]) == (1, "invalid_skill"), ran.stdout
    assert "skill 'my-skill' not found" in result["error"]
    assert ".holon/skills/" in result["error"]  # says where to put it
    assert any("diff.patch" in w for w in result["warnings"])  # a warning, not the reason
