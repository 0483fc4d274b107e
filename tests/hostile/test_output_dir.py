"""Item 4 (agent half): holon-agent destroys no user file in the output dir it is given."""

from __future__ import annotations

import json

from holon_core.testing import make_task, run_agent, snapshot_tree

from .kit import run

WRITE = [{"write": {"path": "hello.txt", "content": "hi\n"}}]


def test_an_output_dir_with_files_holon_did_not_write_is_refused_untouched(tmp_path):
    task = make_task(tmp_path, replay=WRITE)
    (task.output / "manifest.json").write_text('{"manifest_version": 3, "name": "my-ext"}')
    (task.output / "evidence").mkdir()
    (task.output / "evidence" / "photo.jpg").write_bytes(b"\xff\xd8")
    (task.output / "summary.md").write_text("my notes\n")
    before = snapshot_tree(task.output)
    result = run(task)
    assert result.exit_code == 1
    assert snapshot_tree(task.output) == before  # nothing deleted, no marker, no manifest
    assert "manifest.json" in result.stderr and "summary.md" in result.stderr
    assert "fix:" in result.stderr and "--output" in result.stderr
    assert not (task.workspace / "hello.txt").exists()  # the engine never started


def test_a_fresh_volume_with_only_lost_and_found_is_usable(tmp_path, assert_valid_manifest):
    task = make_task(tmp_path, replay=WRITE)
    (task.output / "lost+found").mkdir()  # what mkfs leaves at the root of a new volume
    result = run(task)
    assert result.exit_code == 0, result.stderr
    assert "lost+found" not in str(assert_valid_manifest(result.manifest)["artifacts"])
    assert (task.output / "lost+found").is_dir()
    (task.output / "lost+found" / "#1234").write_text("recovered\n")  # still never deleted
    assert run(task).exit_code == 0
    assert (task.output / "lost+found" / "#1234").read_text() == "recovered\n"


def test_a_symlink_named_like_the_marker_does_not_make_a_dir_holons(tmp_path):
    task = make_task(tmp_path, replay=WRITE)
    marker = tmp_path / "real-marker"
    marker.write_text('{"owner": "holon-agent"}')
    (task.output / ".holon-owned").symlink_to(marker)
    (task.output / "keep.txt").write_text("user file\n")
    result = run(task)
    assert result.exit_code == 1
    assert (task.output / "keep.txt").read_text() == "user file\n"


def test_holon_marks_a_new_output_dir_and_reuses_it(tmp_path, assert_valid_manifest):
    task = make_task(tmp_path, replay=WRITE)
    first = run(task)
    assert first.exit_code == 0, first.stderr
    marker = task.output / ".holon-owned"
    assert marker.is_file() and not marker.is_symlink()
    assert json.loads(marker.read_text())["owner"] == "holon-agent"
    assert ".holon-owned" not in assert_valid_manifest(first.manifest)["artifacts"]
    second = run(task)
    assert second.exit_code == 0, second.stderr
    assert assert_valid_manifest(second.manifest)["outcome"] == "success"


def test_the_probe_never_overwrites_a_users_manifest(tmp_path):
    task = make_task(tmp_path, replay=WRITE)
    (task.output / "manifest.json").write_text('{"manifest_version": 3, "name": "my-ext"}')
    before = snapshot_tree(task.output)
    probed = run_agent(task, args=["--probe"])
    assert probed.exit_code == 1
    assert "did not write" in probed.stderr
    assert snapshot_tree(task.output) == before


def test_a_probe_then_a_run_share_one_output_dir(tmp_path, assert_valid_manifest):
    task = make_task(tmp_path, replay=WRITE)
    probed = run_agent(task, args=["--probe"])
    assert probed.exit_code == 0, probed.stderr
    result = run(task)
    assert result.exit_code == 0, result.stderr
    assert assert_valid_manifest(result.manifest)["metadata"]["mode"] == "run"
