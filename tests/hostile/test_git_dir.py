"""Issue 22: an engine that deletes or breaks the workspace's ``.git`` cannot take the record.

holon-agent runs directly on a repository (no ``holon run`` snapshot), so the baseline's
objects live in the very ``.git`` the engine destroys. The record must keep the engine's
edits (``diff.patch`` against the recorded baseline) and say what happened to ``.git``.
"""

from __future__ import annotations

import dataclasses
import subprocess
from pathlib import Path

import pytest

from holon_core.testing import make_task
from holon_core.testing.task import git

from .kit import run, tmpfs

FILES: dict[str, str | bytes] = {
    "a.txt": "one\n",
    "keep.txt": "untouched\n",
    "src/app.py": "print('app')\n",
}
EDIT = {"write": {"path": "a.txt", "content": "two\n"}}


def _warnings(manifest: dict[str, object]) -> str:
    meta = manifest["metadata"]
    assert isinstance(meta, dict)
    return " ".join(meta.get("warnings", []))


def _applies_to_baseline(tmp_path: Path, baseline: dict[str, str | bytes], patch: Path) -> Path:
    """A copy of the workspace as the run began, with ``diff.patch`` applied by git."""
    copy = tmp_path / "check"
    for name, content in baseline.items():
        (copy / name).parent.mkdir(parents=True, exist_ok=True)
        (copy / name).write_bytes(content.encode() if isinstance(content, str) else content)
    subprocess.run(["git", "apply", str(patch)], cwd=copy, check=True, capture_output=True)
    return copy


@pytest.mark.parametrize(
    "damage",
    [
        "rm -rf .git",
        "rm -rf .git/objects && echo garbage > .git/HEAD",
        "git -c gc.auto=0 rm -q --cached a.txt && git reflog expire --expire=now --all "
        "&& git update-ref -d HEAD && git prune --expire=now",
    ],
    ids=["deleted", "objects-deleted-head-garbled", "history-pruned"],
)
def test_the_edit_survives_the_engine_breaking_git(tmp_path, damage, assert_valid_manifest):
    task = make_task(tmp_path, files=FILES, replay=[EDIT, {"run": damage}])
    (task.workspace / "src/app.py").write_text("print('dirty')\n")  # its blob is not in HEAD
    (task.workspace / "new.txt").write_text("untracked\n")
    baseline = {**FILES, "src/app.py": "print('dirty')\n", "new.txt": "untracked\n"}
    result = run(task)
    assert "Traceback" not in result.stderr
    manifest = assert_valid_manifest(result.manifest)
    assert manifest["metadata"]["reason"] == "ok", result.stderr
    assert result.exit_code == 0
    patch = task.output / "diff.patch"
    text = patch.read_text()
    assert "-one" in text and "+two" in text
    assert "keep.txt" not in text and "app.py" not in text
    copy = _applies_to_baseline(tmp_path, baseline, patch)
    assert (copy / "a.txt").read_text() == "two\n"
    warnings = _warnings(manifest)
    assert ".git" in warnings and "diff.patch" in warnings
    assert ".git" in result.stderr


def test_an_engine_that_commits_is_named_in_the_warnings(tmp_path, assert_valid_manifest):
    commit = "git add -A && git -c user.name=e -c user.email=e@e commit -q -m engine"
    task = make_task(tmp_path, files=FILES, replay=[EDIT, {"run": commit}])
    head = git(task.workspace, "rev-parse", "HEAD").strip()
    result = run(task)
    manifest = assert_valid_manifest(result.manifest)
    assert result.exit_code == 0, result.stderr
    assert "+two" in (task.output / "diff.patch").read_text()
    warnings = _warnings(manifest)
    assert "HEAD" in warnings and head[:12] in warnings


def test_a_run_that_leaves_git_alone_has_no_such_warning(tmp_path, assert_valid_manifest):
    task = make_task(tmp_path, files=FILES, replay=[EDIT])
    result = run(task)
    manifest = assert_valid_manifest(result.manifest)
    assert result.exit_code == 0, result.stderr
    assert ".git" not in _warnings(manifest) and "HEAD" not in _warnings(manifest)


def test_the_edit_survives_with_the_state_dir_on_another_filesystem(
    tmp_path, assert_valid_manifest
):
    """No hard link reaches across filesystems: the tree's objects are packed instead."""
    task = make_task(tmp_path / "t", files=FILES, replay=[EDIT, {"run": "rm -rf .git"}])
    with tmpfs(tmp_path / "otherfs", "64m") as other:
        result = run(dataclasses.replace(task, state=other / "state"))
    manifest = assert_valid_manifest(result.manifest)
    assert result.exit_code == 0, result.stderr
    copy = _applies_to_baseline(tmp_path, FILES, task.output / "diff.patch")
    assert (copy / "a.txt").read_text() == "two\n"
    assert ".git" in _warnings(manifest)
