"""Item 1: links (and hard links) the engine plants are never followed by holon."""

from __future__ import annotations

import json

from holon_core.testing import make_task

from .kit import TO_ENGINE_STDERR, run, tree_bytes

WRITE = {"write": {"path": "hello.txt", "content": "hi\n"}}


def test_a_link_planted_at_an_evidence_log_is_replaced_not_written_through(
    tmp_path, assert_valid_manifest
):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    plant = f"ln -sf {victim} {{output}}/evidence/engine.stderr.log"
    task = make_task(
        tmp_path / "t",
        replay=[WRITE, {"run": f"{plant} && echo engine-noise {TO_ENGINE_STDERR}"}],
    )
    result = run(task)
    assert victim.read_text() == "precious\n"
    log = task.output / "evidence" / "engine.stderr.log"
    assert not log.is_symlink() and "engine-noise" in log.read_text()
    assert assert_valid_manifest(result.manifest)["outcome"] == "success", result.stderr


def test_a_hard_link_planted_at_an_evidence_log_is_not_written_into(
    tmp_path, assert_valid_manifest
):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    plant = f"ln -f {victim} {{output}}/evidence/engine.stderr.log"
    task = make_task(
        tmp_path / "t",
        replay=[WRITE, {"run": f"{plant} && echo engine-noise {TO_ENGINE_STDERR}"}],
    )
    result = run(task)
    assert victim.read_text() == "precious\n"
    assert assert_valid_manifest(result.manifest)["outcome"] == "success", result.stderr


def test_a_symlinked_evidence_dir_truncates_nothing_and_fails_the_run(
    tmp_path, assert_valid_manifest
):
    victims = tmp_path / "victims"
    victims.mkdir()
    for name in ("engine.stderr.log", "resources.json", "execution.log", "events.ndjson"):
        (victims / name).write_text(f"user data in {name}\n")
    before = tree_bytes(victims)
    swap = f"rm -rf {{output}}/evidence && ln -s {victims} {{output}}/evidence"
    task = make_task(
        tmp_path / "t",
        replay=[WRITE, {"run": f"{swap} && echo engine-noise {TO_ENGINE_STDERR}"}],
    )
    result = run(task)
    assert tree_bytes(victims) == before
    manifest = assert_valid_manifest(result.manifest)
    assert result.exit_code == 1
    assert manifest["metadata"]["reason"] == "output_replaced"
    assert "evidence/" in manifest["error"]


def test_an_output_dir_swapped_for_a_link_gets_nothing_and_the_run_fails(
    tmp_path, assert_valid_manifest
):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.txt").write_text("someone else's\n")
    moved = tmp_path / "t" / "output.x"  # make_task puts the output dir at t/output
    swap = f"mv {{output}} {moved} && ln -s {elsewhere} {{output}}"
    task = make_task(tmp_path / "t", replay=[WRITE, {"run": swap}])
    assert task.output.with_name("output.x") == moved
    result = run(task)
    assert result.exit_code == 1, result.stderr
    assert sorted(p.name for p in elsewhere.iterdir()) == ["keep.txt"]
    manifest = assert_valid_manifest(json.loads((moved / "manifest.json").read_text()))
    assert manifest["metadata"]["reason"] == "output_replaced"
    assert str(moved) in manifest["error"]
    assert "hello.txt" in (moved / "diff.patch").read_text()
    assert "output_replaced" in result.stderr


def test_links_out_of_the_output_dir_are_never_artifacts(tmp_path, assert_valid_manifest):
    secret = tmp_path / "outside.txt"
    secret.write_text("not the run's\n")
    (tmp_path / "outside-dir").mkdir()
    (tmp_path / "outside-dir" / "deep.txt").write_text("not the run's either\n")
    plant = (
        "echo report > {output}/report.txt"
        f" && ln -s {secret} {{output}}/leak.txt"
        f" && ln -s {tmp_path / 'outside-dir'} {{output}}/leakdir"
        " && ln -s ../../outside.txt {output}/relative-leak.txt"
        " && ln -s report.txt {output}/alias.txt"
    )
    task = make_task(tmp_path / "t", replay=[WRITE, {"run": plant}])
    result = run(task)
    manifest = assert_valid_manifest(result.manifest)
    artifacts = manifest["artifacts"]
    assert "report.txt" in artifacts and "alias.txt" in artifacts  # a link that stays inside
    for leak in ("leak.txt", "leakdir", "leakdir/deep.txt", "relative-leak.txt"):
        assert leak not in artifacts, artifacts
    assert result.exit_code == 0, result.stderr
