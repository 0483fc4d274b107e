"""Snapshots of real workspaces: same content as the source, source and its .git untouched."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from holon_core.errors import WorkspaceError
from holon_core.workspace import make_snapshot, record_baseline, remove_snapshot, write_diff

from .helpers import (
    apply_patch,
    engine_changes,
    git,
    hash_everything,
    make_dirty_repo,
    populate,
    tree_state,
    write,
)

if TYPE_CHECKING:
    from pathlib import Path

IGNORED = (".git", "keep.log", "secret.env")


def status(repo: Path) -> str:
    """`git status` without refreshing (so without writing) the index."""
    return git(repo, "status", "--porcelain=v1", "-uall")


def test_dirty_repo_snapshot_matches_working_state(tmp_path: Path) -> None:
    src = tmp_path / "src"
    make_dirty_repo(src)
    write(src, "untracked/dir/x.bin", b"\x00\x01")
    before_git = hash_everything(src / ".git")
    before_files = tree_state(src)
    snap = make_snapshot(src, tmp_path / "snap")
    assert snap.kind == "git-clone"
    assert tree_state(snap.path, IGNORED) == {
        k: v for k, v in before_files.items() if k not in IGNORED
    }
    assert not (snap.path / "keep.log").exists()  # ignored files stay behind
    assert git(snap.path, "rev-parse", "HEAD") == git(src, "rev-parse", "HEAD")
    assert git(snap.path, "symbolic-ref", "HEAD").strip() == "refs/heads/main"
    assert status(snap.path) == status(src)  # staged vs unstaged split preserved
    assert git(snap.path, "log", "--format=%s") == "initial\n"  # history via alternates
    assert hash_everything(src / ".git") == before_git
    assert tree_state(src) == before_files
    remove_snapshot(snap)
    assert not snap.path.exists()
    assert tree_state(src) == before_files


def test_plain_directory_snapshot_is_a_copy(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    populate(src)
    (src / "escape").symlink_to(tmp_path / "elsewhere")
    before = tree_state(src)
    snap = make_snapshot(src, tmp_path / "snap")
    assert snap.kind == "copy"
    assert tree_state(snap.path) == before
    assert (snap.path / "escape").is_symlink()
    remove_snapshot(snap)
    assert tree_state(src) == before


def test_unborn_repo_snapshot(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    git(src, "init", "-q", "-b", "trunk")
    write(src, "a.txt", "a\n")
    git(src, "add", "a.txt")
    write(src, "b.txt", "b\n")
    snap = make_snapshot(src, tmp_path / "snap")
    assert tree_state(snap.path) == tree_state(src)
    assert git(snap.path, "symbolic-ref", "HEAD").strip() == "refs/heads/trunk"
    assert status(snap.path) == status(src)


def test_engine_change_in_snapshot_applies_to_original(tmp_path: Path) -> None:
    """The runner's flow: work in the snapshot, apply its diff.patch to the original."""
    src = tmp_path / "src"
    make_dirty_repo(src)
    before_git = hash_everything(src / ".git")
    snap = make_snapshot(src, tmp_path / "snap")
    baseline = record_baseline(snap.path, tmp_path / "state")
    engine_changes(snap.path, tmp_path / "outside.txt")
    result = write_diff(baseline, tmp_path / "diff.patch", exclude=[".holon", "AGENTS.md"])
    assert hash_everything(src / ".git") == before_git
    apply_patch(src, result.patch_path)
    skip = (*IGNORED, "debug.log", "build", ".holon", "AGENTS.md")
    assert tree_state(src, skip) == tree_state(snap.path, skip)
    assert hash_everything(src / ".git") == before_git


def test_destination_must_be_empty_and_outside(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    populate(src)
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    with pytest.raises(WorkspaceError):
        make_snapshot(src, tmp_path / "full")
    with pytest.raises(WorkspaceError):
        make_snapshot(src, src / "inner")
    assert (tmp_path / "full" / "x").read_text() == "x"


def test_files_the_users_global_excludes_ignore_stay_out_of_the_snapshot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text("[core]\n\texcludesFile = ~/my-ignore\n")
    (home / "my-ignore").write_text("global-secret.env\n")
    monkeypatch.setenv("HOME", str(home))
    src = tmp_path / "src"
    make_dirty_repo(src)
    write(src, "global-secret.env", "TOKEN=abc\n")
    write(src, "kept.txt", "kept\n")
    snap = make_snapshot(src, tmp_path / "snap")
    assert (snap.path / "kept.txt").is_file()
    assert not (snap.path / "global-secret.env").exists()


def test_a_nested_repository_without_a_commit_does_not_break_baseline_or_snapshot(
    tmp_path: Path,
) -> None:
    src = tmp_path / "src"
    make_dirty_repo(src)
    write(src, "inner/f.txt", "f\n")
    git(src / "inner", "init", "-q")
    baseline = record_baseline(src, tmp_path / "state")
    write(src, "top.txt", "changed\n")
    result = write_diff(baseline, tmp_path / "out" / "diff.patch")
    assert "top.txt" in result.files
    snap = make_snapshot(src, tmp_path / "snap")
    assert (snap.path / "top.txt").is_file()


def test_a_workspace_inside_a_repo_leaves_ignored_files_out(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    make_dirty_repo(repo)
    write(repo, ".gitignore", "*.log\nbuild/\n")
    write(repo, "pkg/src.py", "print('hi')\n")
    write(repo, "pkg/run.sh", "echo\n", mode=0o755)
    write(repo, "pkg/debug.log", "ignored\n")
    write(repo, "pkg/build/out.o", b"\x00ignored")
    write(repo, "pkg/new-untracked.txt", "new\n")
    git(repo, "add", ".gitignore", "pkg/src.py", "pkg/run.sh")
    before = hash_everything(repo)
    snap = make_snapshot(repo / "pkg", tmp_path / "snap")
    names = sorted(p.relative_to(snap.path).as_posix() for p in snap.path.rglob("*") if p.is_file())
    assert names == ["new-untracked.txt", "run.sh", "src.py"]
    assert (snap.path / "run.sh").stat().st_mode & 0o111
    assert hash_everything(repo) == before  # the repo, .git included, is untouched
