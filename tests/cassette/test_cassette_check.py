"""``holon cassette check DIR --workspace W`` as a user runs it (no key in the environment):
exit 0 when the replay agrees with the recording, exit 1 with a short report when the
outcome, diff.patch, tool calls or baseline do not."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from holon_core.testing import make_task
from tests.gateway.test_gateway_engines import ENGINES

from .replay_kit import Recording


def holon(*args: str, extra: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_AUTH_TOKEN"))}
    return subprocess.run(
        [sys.executable, "-m", "holon_core", *args],
        env=env | (extra or {}),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def baseline(root, readme: str = "hi\n"):
    """A workspace with the recorded baseline's files (a fresh repository)."""
    return make_task(root, files={"README.md": readme}).workspace


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_check_passes_on_a_fresh_copy_of_the_baseline(engine, recording, tmp_path):
    target = recording(engine).cassette
    workspace = baseline(tmp_path / "fresh")
    done = holon(
        "cassette", "check", str(target), "--workspace", str(workspace), extra=ENGINES[engine][1]
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "agree with the recording" in done.stdout
    assert sorted(p.name for p in workspace.iterdir()) == [".git", "README.md"]  # untouched


def test_check_fails_with_a_report_when_the_replay_differs(recording, tmp_path):
    shared: Recording = recording("claude")
    target = shutil.copytree(shared.cassette, tmp_path / "cassette")  # its diff.patch changes
    other = baseline(tmp_path / "other", readme="a different baseline\n")
    done = holon("cassette", "check", str(target), "--workspace", str(other))
    assert done.returncode == 1
    assert "not at the recorded baseline" in done.stdout, done.stdout + done.stderr
    # A recording whose diff.patch says something else than what the replay does.
    patch = target / "diff.patch"
    patch.write_text(patch.read_text().replace("hello from holon", "hello from elsewhere"))
    done = holon("cassette", "check", str(target), "--workspace", str(baseline(tmp_path / "b")))
    assert done.returncode == 1
    assert "diff.patch differs" in done.stdout and "elsewhere" in done.stdout, done.stdout


def test_check_of_a_directory_that_is_no_cassette_is_a_clear_error(tmp_path):
    done = holon("cassette", "check", str(tmp_path))
    assert done.returncode == 1
    assert "no cassette" in done.stderr and "--record" in done.stderr
