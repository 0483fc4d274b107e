"""Baseline + diff against real git: every kind of change, applied back with `git apply`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from holon_core.errors import WorkspaceError
from holon_core.workspace import record_baseline, write_diff

from .helpers import (
    CHANGED,
    HOLON_PLACED,
    apply_patch,
    copy_tree,
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

IGNORED = ("debug.log", "build", "keep.log")


def run_and_check(ws: Path, tmp: Path, skip: tuple[str, ...], expected: list[str]) -> Path:
    """Baseline, engine changes, diff; then the patch must turn the baseline into the result."""
    baseline_copy = tmp / "baseline-copy"
    baseline_copy.mkdir()
    baseline = record_baseline(ws, tmp / "state")
    copy_tree(ws, baseline_copy)
    engine_changes(ws, tmp / "outside.txt")
    result = write_diff(baseline, tmp / "out" / "diff.patch", exclude=HOLON_PLACED)
    assert result.changed
    assert sorted(result.files) == sorted(expected)
    assert sorted(result.binary_files) == ["data/blob.bin", "data/new.bin"]
    assert result.patch_bytes == result.patch_path.stat().st_size > 0
    patch = result.patch_path.read_bytes()
    assert b"outside content" not in patch  # the link is recorded, never its target
    assert b"placed by holon" not in patch
    apply_patch(baseline_copy, result.patch_path)
    assert tree_state(baseline_copy, skip) == tree_state(ws, skip)
    return result.patch_path


def test_dirty_git_repo_round_trip(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    make_dirty_repo(ws)
    before = hash_everything(ws / ".git")
    baseline = record_baseline(ws, tmp_path / "probe")
    assert baseline.kind == "git"
    assert baseline.head == git(ws, "rev-parse", "HEAD").strip()
    assert baseline.dirty is True
    assert baseline.as_manifest() == {
        "kind": "git",
        "head": baseline.head,
        "tree": baseline.tree,
        "dirty": True,
    }
    skip = (".git", *IGNORED, "secret.env", *HOLON_PLACED)
    run_and_check(ws, tmp_path, skip, CHANGED)
    assert hash_everything(ws / ".git") == before


def test_plain_directory_round_trip(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    populate(ws)
    baseline = record_baseline(ws, tmp_path / "probe")
    assert (baseline.kind, baseline.head, baseline.dirty) == ("directory", None, None)
    run_and_check(ws, tmp_path, (*IGNORED, *HOLON_PLACED), [*CHANGED, "secret.env"])
    assert not (ws / ".git").exists()


def test_clean_repo_reports_not_dirty(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    git(ws, "init", "-q")
    populate(ws)
    git(ws, "add", "-A")
    git(ws, "commit", "-q", "-m", "c")
    baseline = record_baseline(ws, tmp_path / "state")
    assert baseline.dirty is False
    assert baseline.tree == git(ws, "rev-parse", "HEAD^{tree}").strip()


@pytest.mark.parametrize("kind", ["git", "directory"])
def test_no_changes_gives_empty_patch(tmp_path: Path, kind: str) -> None:
    ws = tmp_path / "ws"
    if kind == "git":
        make_dirty_repo(ws)
    else:
        ws.mkdir()
        populate(ws)
    baseline = record_baseline(ws, tmp_path / "state")
    write(ws, "debug.log", "ignored files do not count\n")
    result = write_diff(baseline, tmp_path / "diff.patch")
    assert (result.changed, result.files, result.binary_files) == (False, [], [])
    assert result.patch_bytes == 0
    assert (tmp_path / "diff.patch").read_bytes() == b""


def test_unborn_repo(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    git(ws, "init", "-q")
    write(ws, "a.txt", "a\n")
    baseline = record_baseline(ws, tmp_path / "state")
    assert (baseline.kind, baseline.head, baseline.dirty) == ("git", None, True)
    write(ws, "a.txt", "b\n")
    assert write_diff(baseline, tmp_path / "d.patch").files == ["a.txt"]


def test_scratch_and_patch_inside_workspace_are_not_recorded(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    make_dirty_repo(ws)
    baseline = record_baseline(ws, ws / ".holon-state")
    write(ws, "src/util.py", "changed\n")
    result = write_diff(baseline, ws / "out" / "diff.patch")
    assert result.files == ["src/util.py"]


def test_assume_unchanged_file_is_still_recorded(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    make_dirty_repo(ws)
    git(ws, "update-index", "--assume-unchanged", "src/util.py")
    before = hash_everything(ws / ".git")
    baseline = record_baseline(ws, tmp_path / "state")
    write(ws, "src/util.py", "changed behind an assume-unchanged bit\n")
    assert write_diff(baseline, tmp_path / "d.patch").files == ["src/util.py"]
    assert hash_everything(ws / ".git") == before


def test_exclude_accepts_globs_and_pathspec_magic(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    populate(ws)
    baseline = record_baseline(ws, tmp_path / "state")
    write(ws, "a/skill.md", "x")
    write(ws, "b/GEMINI.md", "x")
    write(ws, "c/kept.md", "x")
    result = write_diff(baseline, tmp_path / "d.patch", exclude=["a", ":(glob)**/GEMINI.md"])
    assert result.files == ["c/kept.md"]


def test_user_git_config_cannot_change_the_patch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def one_run(name: str) -> bytes:
        ws = tmp_path / name
        make_dirty_repo(ws)
        write(ws, "crlf.txt", "one\r\ntwo\r\n")
        baseline = record_baseline(ws, tmp_path / f"{name}-state")
        engine_changes(ws, tmp_path / "outside.txt")
        write(ws, "crlf.txt", "one\r\ntwo\r\nthree\r\n")
        return write_diff(baseline, tmp_path / f"{name}.patch").patch_path.read_bytes()

    plain = one_run("plain")
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text(
        "[diff]\n\texternal = /bin/false\n\tnoprefix = true\n\tmnemonicPrefix = true\n"
        "\trenames = copies\n\talgorithm = patience\n"
        "[color]\n\tui = always\n[core]\n\tautocrlf = true\n\tquotePath = false\n"
        "\texcludesFile = ~/ignore\n[status]\n\tshowUntrackedFiles = no\n"
    )
    (home / "ignore").write_text("*.txt\n*.bin\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_EXTERNAL_DIFF", "/bin/false")
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", "'color.diff'='always'")
    monkeypatch.setenv("GIT_DIR", str(tmp_path / "nowhere"))
    assert one_run("configured") == plain
    assert b"\x1b[" not in plain


def test_workspace_must_be_a_directory(tmp_path: Path) -> None:
    with pytest.raises(WorkspaceError) as caught:
        record_baseline(tmp_path / "missing", tmp_path / "state")
    assert caught.value.hint


def test_foreign_scratch_dir_is_never_deleted(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (tmp_path / "state" / "baseline.git").mkdir(parents=True)
    (tmp_path / "state" / "baseline.git" / "precious").write_text("x")
    with pytest.raises(WorkspaceError):
        record_baseline(ws, tmp_path / "state")
    assert (tmp_path / "state" / "baseline.git" / "precious").exists()


def test_subdirectory_of_a_repo_is_a_plain_directory(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    make_dirty_repo(repo)
    before = hash_everything(repo / ".git")
    baseline = record_baseline(repo / "src", tmp_path / "state")
    assert baseline.kind == "directory"
    write(repo, "src/app.py", "changed\n")
    assert write_diff(baseline, tmp_path / "d.patch").files == ["app.py"]
    assert hash_everything(repo / ".git") == before


def test_patch_reverses_cleanly_on_the_final_state(tmp_path: Path) -> None:
    """The patch is consistent with the workspace it came from: `git apply -R` undoes it."""
    ws = tmp_path / "ws"
    make_dirty_repo(ws)
    baseline_state = tree_state(ws)
    baseline = record_baseline(ws, tmp_path / "state")
    engine_changes(ws, tmp_path / "outside.txt")
    patch = write_diff(baseline, tmp_path / "d.patch").patch_path
    apply_patch(ws, patch, reverse=True)
    skip = (".git", *IGNORED, "secret.env", *HOLON_PLACED)
    assert tree_state(ws, skip) == {k: v for k, v in baseline_state.items() if k not in skip}


def test_skip_worktree_file_that_is_present_is_still_recorded(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    make_dirty_repo(ws)
    git(ws, "update-index", "--skip-worktree", "src/util.py")
    baseline = record_baseline(ws, tmp_path / "state")
    write(ws, "src/util.py", "local edit hidden by skip-worktree\n")
    assert write_diff(baseline, tmp_path / "d.patch").files == ["src/util.py"]


def test_linked_worktree_leaves_the_main_repo_untouched(tmp_path: Path) -> None:
    main = tmp_path / "main"
    make_dirty_repo(main)
    git(main, "worktree", "add", "-q", "--detach", str(tmp_path / "linked"))
    ws = tmp_path / "linked"
    write(ws, "wip.txt", "dirty in the linked worktree\n")
    before = hash_everything(main / ".git")
    baseline = record_baseline(ws, tmp_path / "state")
    assert (baseline.kind, baseline.dirty) == ("git", True)
    engine_changes(ws, tmp_path / "outside.txt")
    result = write_diff(baseline, tmp_path / "d.patch", exclude=HOLON_PLACED)
    assert "wip.txt" not in result.files
    assert "src/util.py" in result.files
    assert hash_everything(main / ".git") == before


def test_sha256_repository(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    git(ws, "init", "-q", "--object-format=sha256")
    populate(ws)
    git(ws, "add", "-A")
    git(ws, "commit", "-q", "-m", "c")
    baseline = record_baseline(ws, tmp_path / "state")
    assert (len(baseline.tree), baseline.dirty) == (64, False)
    copy = tmp_path / "copy"
    copy.mkdir()
    copy_tree(ws, copy)
    write(ws, "data/blob.bin", b"\x00\x02" * 50)
    result = write_diff(baseline, tmp_path / "d.patch")
    assert result.binary_files == ["data/blob.bin"]
    apply_patch(copy, result.patch_path)
    assert tree_state(copy) == tree_state(ws)


def test_empty_directory(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    baseline = record_baseline(ws, tmp_path / "state")
    assert write_diff(baseline, tmp_path / "d.patch").changed is False
    write(ws, "first.txt", "x\n")
    assert write_diff(baseline, tmp_path / "d2.patch").files == ["first.txt"]
