"""diff.patch through the whole agent: git or not, dirty, binary, deletions, symlinks."""

from __future__ import annotations

import base64
import shutil
import subprocess

from holon_core.testing import make_task, run_agent, snapshot_tree
from holon_core.testing.task import git

PNG = base64.b64encode(bytes(range(256)) * 4).decode()


def _apply_to_copy_of(baseline_dir, patch, tmp_path):
    target = tmp_path / "apply-check"
    shutil.copytree(baseline_dir, target, symlinks=True, ignore=shutil.ignore_patterns(".git"))
    if patch.stat().st_size:
        subprocess.run(["git", "apply", "--binary", str(patch)], cwd=target, check=True)
    return target


def _strip_git(tree):
    return {k: v for k, v in tree.items() if not k.startswith(".git")}


def test_dirty_git_repo_patch_applies_to_baseline(tmp_path, assert_valid_manifest):
    task = make_task(
        tmp_path, files={"keep.txt": "keep\n", "gone.txt": "bye\n", "tool.sh": "echo\n"}
    )
    (task.workspace / "keep.txt").write_text("dirty before the run\n")  # uncommitted change
    (task.workspace / "untracked-before.txt").write_text("already here\n")
    git_before = snapshot_tree(task.workspace / ".git")
    baseline = tmp_path / "baseline-copy"
    shutil.copytree(task.workspace, baseline, symlinks=True)
    steps = [
        {"write": {"path": "new/dir/added.txt", "content": "added\n"}},
        {"write": {"path": "image.bin", "base64": PNG}},
        {"delete": "gone.txt"},
        {"run": "chmod +x tool.sh && ln -s /etc/hostname outside-link"},
        {"say": "changed things"},
    ]
    (task.input / "context").mkdir()
    import yaml

    (task.input / "context" / "replay.yaml").write_text(yaml.safe_dump(steps))
    result = run_agent(task)
    assert result.exit_code == 0, result.stderr
    manifest = assert_valid_manifest(result.manifest)
    assert manifest["metadata"]["changed"] is True
    assert manifest["metadata"]["baseline"]["kind"] == "git"
    assert manifest["metadata"]["baseline"]["dirty"] is True
    patch = task.output / "diff.patch"
    text = patch.read_text(errors="replace")
    assert "dirty before the run" not in text  # pre-existing changes belong to the baseline
    assert "GIT binary patch" in text
    assert "deleted file mode" in text and "gone.txt" in text
    assert "new mode 100755" in text or "old mode 100644" in text
    assert "new file mode 120000" in text  # the symlink itself, never its target's content
    applied = _apply_to_copy_of(baseline, patch, tmp_path)
    assert _strip_git(snapshot_tree(applied)) == _strip_git(snapshot_tree(task.workspace))
    assert snapshot_tree(task.workspace / ".git") == git_before  # user's .git untouched


def test_plain_directory_workspace(tmp_path, assert_valid_manifest):
    task = make_task(
        tmp_path,
        files={"a.txt": "a\n"},
        git_repo=False,
        replay=[{"write": {"path": "a.txt", "content": "b\n"}}, {"say": "ok"}],
    )
    result = run_agent(task)
    assert result.exit_code == 0, result.stderr
    manifest = assert_valid_manifest(result.manifest)
    assert manifest["metadata"]["baseline"]["kind"] == "directory"
    assert not (task.workspace / ".git").exists()  # holon never runs git init in the workspace
    text = (task.output / "diff.patch").read_text()
    assert "-a\n+b" in text


def test_no_changes_gives_empty_patch(tmp_path, assert_valid_manifest):
    task = make_task(tmp_path, files={"a.txt": "a\n"}, replay=[{"say": "nothing to do"}])
    result = run_agent(task)
    assert result.exit_code == 0, result.stderr
    manifest = assert_valid_manifest(result.manifest)
    assert manifest["metadata"]["changed"] is False
    assert (task.output / "diff.patch").read_text() == ""
    assert git(task.workspace, "status", "--porcelain") == ""


def test_output_and_state_inside_the_workspace_stay_out_of_the_patch(tmp_path):
    task = make_task(
        tmp_path,
        files={"a.txt": "a\n"},
        replay=[{"write": {"path": "b.txt", "content": "b\n"}}, {"say": "ok"}],
    )
    output, state = task.workspace / "out", task.workspace / ".state"
    result = run_agent(task, args=["--output", str(output), "--state", str(state)])
    assert result.exit_code == 0, result.stderr
    patch = (output / "diff.patch").read_text()
    assert "b/b.txt" in patch
    assert "out/" not in patch and ".state" not in patch and "manifest" not in patch


def test_a_nested_repository_is_named_in_the_manifest_not_silently_dropped(tmp_path):
    task = make_task(
        tmp_path,
        files={"a.txt": "a\n"},
        replay=[{"write": {"path": "vendor/lib/x.txt", "content": "changed\n"}}, {"say": "ok"}],
    )
    nested = task.workspace / "vendor" / "lib"
    nested.mkdir(parents=True)
    (nested / "x.txt").write_text("x\n")
    git(nested, "init", "-q")
    git(nested, "add", "-A")
    git(nested, "commit", "-q", "-m", "nested")
    result = run_agent(task)
    assert result.exit_code == 0, result.stderr
    assert result.manifest is not None
    assert any("vendor/lib" in w for w in result.manifest["metadata"]["warnings"])
