"""``pytest --holon-cassettes DIR``: a team's cassettes as test items in their own pytest
run (holon's pytest plugin, loaded by its entry point), passing and failing as the replay
agrees with the recording."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from holon_core.testing import make_task


def test_each_cassette_is_one_item_that_passes_or_fails(recording, tmp_path):
    shelf = tmp_path / "cassettes"
    good = shutil.copytree(recording("claude").cassette, shelf / "hello")
    bad = shelf / "drifted"
    shutil.copytree(good, bad)
    patch = bad / "diff.patch"
    patch.write_text(patch.read_text().replace("hello from holon", "hello from elsewhere"))
    workspace = make_task(tmp_path / "ws", files={"README.md": "hi\n"}).workspace
    project = tmp_path / "project"  # a user's project: no tests of its own, no conftest
    project.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_AUTH_TOKEN"))}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "--holon-cassettes",
            str(shelf),
            "--holon-cassette-workspace",
            str(workspace),
            "-rA",
        ],
        cwd=project,
        env=env | {"HOLON_CLAUDE_MAX_RETRIES": "1"},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    out = done.stdout
    assert done.returncode == 1, out + done.stderr
    assert "1 failed, 1 passed" in out
    lines = out.splitlines()
    assert any(x.startswith("PASSED") and "cassette[cassettes/hello]" in x for x in lines)
    assert any(x.startswith("FAILED") and "cassette[cassettes/drifted]" in x for x in lines)
    assert "diff.patch differs" in out and "elsewhere" in out
