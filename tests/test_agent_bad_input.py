"""Every "bad input" case of the holon-core issue: exit code, manifest and message."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest

from holon_core.testing import make_task, run_agent, snapshot_tree

WRITE: list[dict[str, Any]] = [{"write": {"path": "hello.txt", "content": "hi\n"}}, {"say": "done"}]


def test_missing_input_dir(tmp_path, assert_valid_manifest):
    task = make_task(tmp_path, replay=WRITE)
    (task.input / "spec.yaml").unlink()
    result = run_agent(task)
    assert result.exit_code == 1
    manifest = assert_valid_manifest(result.manifest)
    assert manifest["metadata"]["reason"] == "invalid_spec"
    assert "spec.yaml does not exist" in manifest["error"]
    assert "spec.yaml does not exist" in result.stderr


def test_input_dir_absent_entirely(tmp_path, assert_valid_manifest):
    task = make_task(tmp_path)
    result = run_agent(task, args=["--input", str(tmp_path / "nowhere")])
    assert result.exit_code == 1
    assert "nowhere/spec.yaml does not exist" in assert_valid_manifest(result.manifest)["error"]


def test_invalid_yaml_names_the_line(tmp_path, assert_valid_manifest):
    task = make_task(tmp_path)
    task.spec.write_text('version: "v1"\nkind: Holon\ngoal: [unclosed\n')
    result = run_agent(task)
    assert result.exit_code == 1
    error = assert_valid_manifest(result.manifest)["error"]
    assert "invalid YAML" in error and "spec.yaml:" in error


def test_wrong_field_type_names_field_and_line(tmp_path, assert_valid_manifest):
    task = make_task(tmp_path)
    task.spec.write_text('version: "v1"\nkind: Holon\ngoal: x\nconstraints:\n  max_steps: ten\n')
    result = run_agent(task)
    assert result.exit_code == 1
    error = assert_valid_manifest(result.manifest)["error"]
    assert "spec.yaml:5" in error and "constraints.max_steps" in error


def test_bad_timeout_is_explained(tmp_path, assert_valid_manifest):
    task = make_task(tmp_path, spec_extra={"constraints": {"timeout": "soon"}})
    error = assert_valid_manifest(run_agent(task).manifest)["error"]
    assert "constraints.timeout" in error and "10m" in error


def test_unknown_version_and_kind(tmp_path, assert_valid_manifest):
    task = make_task(tmp_path)
    task.spec.write_text("version: v9\nkind: Holon\ngoal: x\n")
    result = run_agent(task)
    assert result.exit_code == 1
    manifest = assert_valid_manifest(result.manifest)
    assert "unsupported version" in manifest["error"] and "v1" in manifest["error"]
    task.spec.write_text("version: v1\nkind: Robot\ngoal: x\n")
    manifest = assert_valid_manifest(run_agent(task).manifest)
    assert "unsupported kind" in manifest["error"]


def test_unknown_fields_are_warned_not_fatal(tmp_path, assert_valid_manifest):
    task = make_task(tmp_path, replay=WRITE, spec_extra={"future_field": {"x": 1}})
    result = run_agent(task)
    assert result.exit_code == 0, result.stderr
    assert "unknown field 'future_field' ignored" in result.stderr
    log = (task.output / "evidence" / "execution.log").read_text()
    assert "future_field" in log


def test_unwritable_output_dir(tmp_path):
    task = make_task(tmp_path, replay=WRITE)
    blocker = tmp_path / "a-file"
    blocker.write_text("not a dir")
    result = run_agent(task, args=["--output", str(blocker / "out")])
    assert result.exit_code == 1
    assert "output directory is not writable" in result.stderr
    assert "--output" in result.stderr


def test_stale_output_is_not_mixed_in(tmp_path, assert_valid_manifest):
    task = make_task(tmp_path, replay=WRITE)
    (task.output / ".holon-owned").write_text('{"owner": "holon-agent"}')  # an earlier run's
    (task.output / "evidence").mkdir()
    (task.output / "evidence" / "old.log").write_text("old")
    (task.output / "diff.patch").write_text("stale")
    (task.output / "notes-from-before.txt").write_text("user file")
    result = run_agent(task)
    assert result.exit_code == 0, result.stderr
    manifest = assert_valid_manifest(result.manifest)
    assert "evidence/old.log" not in manifest["artifacts"]
    assert "notes-from-before.txt" not in manifest["artifacts"]
    assert (task.output / "notes-from-before.txt").read_text() == "user file"
    assert "hello.txt" in (task.output / "diff.patch").read_text()


def test_unknown_engine(tmp_path, assert_valid_manifest):
    task = make_task(tmp_path, replay=WRITE)
    result = run_agent(task, engine="nosuch")
    assert result.exit_code == 1
    manifest = assert_valid_manifest(result.manifest)
    assert manifest["metadata"]["reason"] == "unknown_engine"
    assert 'unknown engine "nosuch"' in manifest["error"] and "replay" in manifest["error"]


def test_engine_binary_missing(tmp_path, assert_valid_manifest):
    task = make_task(tmp_path, replay=WRITE)
    result = run_agent(
        task,
        engine="claude",
        env={"HOLON_CLAUDE_BIN": str(tmp_path / "no-claude"), "ANTHROPIC_API_KEY": "sk-test-x"},
    )
    assert result.exit_code == 1
    manifest = assert_valid_manifest(result.manifest)
    assert manifest["metadata"]["reason"] == "engine_missing"
    assert "holon engines install claude" in manifest["error"]


def test_engine_crashes_mid_run(tmp_path, assert_valid_manifest):
    task = make_task(tmp_path, replay=[{"write": {"path": "a.txt", "content": "a"}}, {"exit": 3}])
    result = run_agent(task)
    assert result.exit_code == 1
    manifest = assert_valid_manifest(result.manifest)
    assert manifest["metadata"]["reason"] == "engine_crashed"
    assert "code 3" in manifest["error"]
    assert "a.txt" in (task.output / "diff.patch").read_text()  # work is not lost


def test_engine_hangs_silence_timeout(tmp_path, assert_valid_manifest):
    task = make_task(tmp_path, replay=[{"say": "thinking"}, {"sleep": 60}])
    result = run_agent(task, env={"HOLON_SILENCE_TIMEOUT": "1"})
    assert result.exit_code == 1
    manifest = assert_valid_manifest(result.manifest)
    assert manifest["metadata"]["reason"] == "stalled"
    assert "HOLON_SILENCE_TIMEOUT" in manifest["error"]


def test_wall_clock_timeout(tmp_path, assert_valid_manifest):
    task = make_task(
        tmp_path,
        replay=[{"run": "for i in 1 2 3 4 5 6 7 8 9 10; do echo $i; sleep 0.5; done"}],
        spec_extra={"constraints": {"timeout": "1s"}},
    )
    manifest = assert_valid_manifest(run_agent(task).manifest)
    assert manifest["metadata"]["reason"] == "timeout"


def test_exit_zero_without_terminal_event(tmp_path, assert_valid_manifest):
    task = make_task(tmp_path, replay=[{"say": "bye"}, {"exit": 0}])
    result = run_agent(task)
    assert result.exit_code == 1
    assert assert_valid_manifest(result.manifest)["metadata"]["reason"] == "silent_success"


def test_required_artifact_missing(tmp_path, assert_valid_manifest):
    spec = {"output": {"artifacts": [{"path": "report.json", "required": True}]}}
    task = make_task(tmp_path, replay=WRITE, spec_extra=spec)
    result = run_agent(task)
    assert result.exit_code == 1
    manifest = assert_valid_manifest(result.manifest)
    assert manifest["metadata"]["reason"] == "missing_artifacts"
    assert "report.json" in manifest["error"]


def test_required_artifact_present(tmp_path, assert_valid_manifest):
    spec = {"output": {"artifacts": [{"path": "report.json", "required": True}]}}
    steps = [{"write": {"path": "{output}/report.json", "content": "{}"}}]
    task = make_task(tmp_path, replay=steps, spec_extra=spec)
    result = run_agent(task)
    assert result.exit_code == 0, result.stderr
    assert "report.json" in assert_valid_manifest(result.manifest)["artifacts"]


@pytest.mark.parametrize("where", ["workspace", "input", "parent-of-workspace"])
def test_output_overlapping_workspace_or_input_is_refused(tmp_path, where):
    task = make_task(tmp_path, files={"summary.md": "the user's\n"}, replay=WRITE)
    output = {
        "workspace": task.workspace,
        "input": task.input,
        "parent-of-workspace": tmp_path,
    }[where]
    before = snapshot_tree(tmp_path)
    result = run_agent(task, args=["--output", str(output)])
    assert result.exit_code == 1
    assert "output dir" in result.stderr and "fix:" in result.stderr
    assert snapshot_tree(tmp_path) == before  # nothing deleted, nothing written


def test_a_stale_file_does_not_satisfy_a_required_artifact(tmp_path, assert_valid_manifest):
    spec = {"output": {"artifacts": [{"path": "report.json", "required": True}]}}
    task = make_task(tmp_path, replay=WRITE, spec_extra=spec)
    (task.output / ".holon-owned").write_text('{"owner": "holon-agent"}')
    (task.output / "report.json").write_text("{}")  # left by an earlier run
    result = run_agent(task)
    assert result.exit_code == 1
    assert assert_valid_manifest(result.manifest)["metadata"]["reason"] == "missing_artifacts"


@pytest.mark.parametrize("goal", ['""', '"   "', "{description: ''}"])
def test_an_empty_goal_is_rejected_by_run_and_probe(tmp_path, goal, assert_valid_manifest):
    task = make_task(tmp_path, replay=WRITE)
    task.spec.write_text(f'version: "v1"\nkind: Holon\ngoal: {goal}\n')
    result = run_agent(task)
    assert result.exit_code == 1
    assert "goal" in assert_valid_manifest(result.manifest)["error"]
    assert run_agent(task, args=["--probe"]).exit_code == 1


# --- Hostile inputs (issue 12, item 8): each ends with its own reason, never internal_error.

_BOMB = "\n".join(
    ["a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    + [
        f"{n}: &{n} [{', '.join(['*' + p] * 9)}]"
        for p, n in zip("abcdefgh", "bcdefghi", strict=True)
    ]
)


def _small_record(result, assert_valid_manifest, reason: str) -> dict[str, Any]:
    """A failure manifest with ``reason`` that quotes nothing large."""
    assert result.exit_code == 1, result.stderr
    manifest: dict[str, Any] = assert_valid_manifest(result.manifest)
    assert manifest["metadata"]["reason"] == reason, manifest["error"]
    assert len(json.dumps(manifest)) < 64 * 1024
    assert len(result.stderr) < 64 * 1024
    assert "Traceback" not in result.stderr
    return manifest


def test_yaml_alias_bomb_in_the_spec(tmp_path, assert_valid_manifest):
    task = make_task(tmp_path, replay=WRITE)
    # an unknown field holding 9**9 nodes: today's loader accepts it and the run goes on
    task.spec.write_text(f'version: "v1"\nkind: Holon\ngoal: x\n{_BOMB}\nextra: *i\n')
    manifest = _small_record(run_agent(task), assert_valid_manifest, "invalid_spec")
    assert "expands to more than" in manifest["error"]


def test_yaml_alias_bomb_in_a_skill_name(tmp_path, assert_valid_manifest):
    task = make_task(tmp_path, replay=WRITE)
    skill = tmp_path / "bomb"
    skill.mkdir()
    (skill / "SKILL.md").write_text(f"---\n{_BOMB}\nname: *i\ndescription: d\n---\nbody\n")
    result = run_agent(task, args=["--skill", str(skill)])
    manifest = _small_record(result, assert_valid_manifest, "invalid_skill")
    assert "SKILL.md" in manifest["error"] and "expands to more than" in manifest["error"]


@pytest.mark.parametrize("opener", ["[", "{a: ", "- "])
def test_deeply_nested_spec(tmp_path, assert_valid_manifest, opener):
    task = make_task(tmp_path, replay=WRITE)
    depth = 5000
    if opener == "- ":  # block style: "- - - x" is [[[x]]]
        nested = "- " * depth + "x"
    else:
        nested = opener * depth + "x" + ("]" if opener == "[" else "}") * depth
    task.spec.write_text(f'version: "v1"\nkind: Holon\ngoal: x\nextra:\n  {nested}\n')
    manifest = _small_record(run_agent(task), assert_valid_manifest, "invalid_spec")
    assert "nested deeper than" in manifest["error"]


def test_oversized_spec_is_refused_naming_the_cap(tmp_path, assert_valid_manifest):
    from holon_core.spec.load import MAX_SPEC_BYTES

    task = make_task(tmp_path, replay=WRITE)
    padding = "# padding\n" * (MAX_SPEC_BYTES // 10 + 1)
    task.spec.write_text(f'version: "v1"\nkind: Holon\ngoal: x\n{padding}')
    manifest = _small_record(run_agent(task), assert_valid_manifest, "invalid_spec")
    assert str(MAX_SPEC_BYTES) in manifest["error"]


@pytest.mark.parametrize("kind", ["fifo", "directory", "device"])
def test_spec_that_is_not_a_regular_file(tmp_path, assert_valid_manifest, kind):
    task = make_task(tmp_path, replay=WRITE)
    task.spec.unlink()
    if kind == "fifo":
        os.mkfifo(task.spec)  # reading it would block forever
    elif kind == "directory":
        task.spec.mkdir()
    else:
        task.spec.symlink_to("/dev/zero")  # endless
    manifest = _small_record(run_agent(task), assert_valid_manifest, "invalid_spec")
    assert "spec.yaml" in manifest["error"] and "regular file" in manifest["error"]


def test_unreadable_spec_names_the_cause(tmp_path, assert_valid_manifest):
    task = make_task(tmp_path, replay=WRITE)
    task.spec.unlink()
    task.spec.symlink_to(task.spec)  # opening it fails with ELOOP (root ignores chmod 000)
    manifest = _small_record(run_agent(task), assert_valid_manifest, "invalid_spec")
    assert "cannot be read" in manifest["error"] and "symbolic links" in manifest["error"]
    assert run_agent(task, args=["--probe"]).exit_code == 1


def test_non_utf8_skill_md(tmp_path, assert_valid_manifest):
    task = make_task(tmp_path, replay=WRITE)
    skill = tmp_path / "latin"
    skill.mkdir()
    (skill / "SKILL.md").write_bytes(b"---\nname: latin\ndescription: caf\xe9\n---\nbody\n")
    result = run_agent(task, args=["--skill", str(skill)])
    manifest = _small_record(result, assert_valid_manifest, "invalid_skill")
    assert "UTF-8" in manifest["error"] and "SKILL.md" in manifest["error"]


def _engine_manifest(tmp_path, text: str):
    write = {"write": {"path": "{output}/manifest.json", "content": text}}
    return make_task(tmp_path, replay=[write, {"say": "done"}])


def test_engine_manifest_that_is_deeply_nested_is_ignored(tmp_path, assert_valid_manifest):
    task = _engine_manifest(tmp_path, '{"notes": ' + "[" * 100_000 + "]" * 100_000 + "}")
    result = run_agent(task)
    assert result.exit_code == 0, result.stderr
    manifest = assert_valid_manifest(result.manifest)
    assert manifest["metadata"]["reason"] == "ok" and "notes" not in manifest
    assert any("manifest.json" in w for w in manifest["metadata"]["warnings"])


def test_engine_manifest_that_is_huge_is_ignored(tmp_path, assert_valid_manifest):
    from holon_core.record.engine_manifest import MAX_ENGINE_MANIFEST

    task = _engine_manifest(tmp_path, json.dumps({"blob": "x" * MAX_ENGINE_MANIFEST}))
    result = run_agent(task)
    assert result.exit_code == 0, result.stderr
    manifest = assert_valid_manifest(result.manifest)
    assert "blob" not in manifest
    assert any(str(MAX_ENGINE_MANIFEST) in w for w in manifest["metadata"]["warnings"])


def test_engine_manifest_artifacts_escaping_the_output_are_dropped(tmp_path, assert_valid_manifest):
    declared = ["../../etc/passwd", "/etc/passwd", "a/../../x", "", "report.md", {"path": "../y"}]
    write = {"write": {"path": "{output}/manifest.json", "content": json.dumps(
        {"artifacts": declared, "kept": 1})}}  # fmt: skip
    report = {"write": {"path": "{output}/report.md", "content": "x"}}  # listed: it exists
    task = make_task(tmp_path, replay=[write, report, {"say": "done"}])
    result = run_agent(task)
    assert result.exit_code == 0, result.stderr
    manifest = assert_valid_manifest(result.manifest)
    assert manifest["kept"] == 1
    assert "report.md" in manifest["artifacts"]
    assert not [a for a in manifest["artifacts"] if a.startswith("/") or ".." in a.split("/")]
    assert "" not in manifest["artifacts"]
    warning = " ".join(manifest["metadata"]["warnings"])
    assert "../../etc/passwd" in warning and "../y" in warning


def test_engine_printing_deeply_nested_json_is_not_an_internal_error(tmp_path):
    # the engine's own stdout (not a tool's captured output) gets one line nested 5000 deep
    deep = "print('{\\\"a\\\":' + '[' * 5000 + ']' * 5000 + '}')"
    task = make_task(tmp_path, replay=[{"run": f'python3 -c "{deep}" > /proc/$PPID/fd/1'}])
    result = run_agent(task)
    assert result.exit_code == 0, result.stderr
    assert result.manifest is not None and result.manifest["metadata"]["reason"] == "ok"
    assert any(e.get("data", {}).get("unparsed") for e in result.events)
