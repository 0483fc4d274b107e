"""Item 2: the engine cannot take away holon's ability to write the record.

The chmod cases run holon-agent bound by file permissions (see ``kit.run``): under root,
without the capabilities that ignore them. The full disk is real: the output dir lives on a
2 MiB tmpfs the test mounts (this needs root, which the CI container has; a test that
"fills" the disk with RLIMIT_FSIZE would see EFBIG, not ENOSPC).
"""

from __future__ import annotations

import dataclasses
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from holon_core.testing import make_task

from .kit import TO_ENGINE_STDERR, run, tmpfs

WRITE = {"write": {"path": "hello.txt", "content": "hi\n"}}


def _warnings(manifest: dict[str, object]) -> str:
    meta = manifest["metadata"]
    assert isinstance(meta, dict)
    return " ".join(meta.get("warnings", []))


def test_a_read_only_output_dir_still_gets_the_full_record(tmp_path, assert_valid_manifest):
    task = make_task(tmp_path, replay=[WRITE, {"run": "chmod 555 {output}"}])
    result = run(task, unprivileged=True)
    manifest = assert_valid_manifest(result.manifest)
    assert result.exit_code == 0, result.stderr
    assert manifest["outcome"] == "success"
    assert "hi" in (task.output / "diff.patch").read_text()
    assert (task.output / "summary.md").is_file()
    assert "restored" in _warnings(manifest) and "0555" in _warnings(manifest)


def test_an_unreadable_evidence_dir_still_gets_the_full_record(tmp_path, assert_valid_manifest):
    script = [WRITE, {"run": f"chmod 000 {{output}}/evidence; echo late {TO_ENGINE_STDERR}"}]
    task = make_task(tmp_path, replay=script)
    result = run(task, unprivileged=True)
    manifest = assert_valid_manifest(result.manifest)
    assert result.exit_code == 0, result.stderr
    assert manifest["outcome"] == "success"
    assert "evidence/resources.json" in manifest["artifacts"]
    assert "late" in (task.output / "evidence" / "engine.stderr.log").read_text()
    assert "restored" in _warnings(manifest)


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A real 2 MiB filesystem (tmpfs), unmounted afterwards."""
    with tmpfs(tmp_path / "small", "2m") as mount:
        yield mount


def test_an_engine_that_fills_the_disk_leaves_a_disk_full_record(
    tmp_path, small_disk, assert_valid_manifest
):
    fill = "dd if=/dev/zero of={output}/fill bs=64k 2>/dev/null; echo filled"
    script = [WRITE, {"run": fill}, {"run": f"echo after the disk filled {TO_ENGINE_STDERR}"}]
    task = make_task(tmp_path / "t", replay=script)
    task = dataclasses.replace(task, output=small_disk / "output")
    result = run(task)
    assert "Traceback" not in result.stderr
    manifest = assert_valid_manifest(result.manifest)
    assert result.exit_code == 1
    assert manifest["metadata"]["reason"] == "disk_full"
    assert "space" in manifest["error"]
    assert "disk_full" in result.stderr


def test_a_disk_already_full_before_the_launch_is_a_clear_error(tmp_path, small_disk):
    subprocess.run(
        ["dd", "if=/dev/zero", f"of={small_disk / 'fill'}", "bs=64k"],
        capture_output=True,
        check=False,
    )
    task = make_task(tmp_path / "t", replay=[WRITE])
    task = dataclasses.replace(task, output=small_disk / "output")
    result = run(task)
    assert result.exit_code == 1
    assert "Traceback" not in result.stderr
    assert "space" in result.stderr.lower()
    assert not (task.workspace / "hello.txt").exists()  # the engine never started
