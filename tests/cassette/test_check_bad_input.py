"""``holon cassette check`` refused before the replay starts: an error with the fix, exit 1,
never a traceback, and the user's files left alone."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.refusal_cases import cassette
from tests.runner import kit as runner_kit


def test_an_output_dir_holding_a_users_files_is_refused_cleanly(tmp_path: Path) -> None:
    root = cassette(tmp_path, "replay")
    ws = runner_kit.make_workspace(tmp_path / "ws", "git")
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine\n")
    argv = ["cassette", "check", str(root), "--workspace", str(ws), "--output", str(mine)]
    done = subprocess.run(
        [sys.executable, "-m", "holon_core", *argv],
        env=runner_kit.base_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1, done.stdout
    assert "Traceback" not in done.stderr, done.stderr
    assert "is not empty (notes.txt)" in done.stderr and "pass a new or empty" in done.stderr
    assert (mine / "notes.txt").read_text() == "mine\n"
