"""Fixtures for the container tests (run by ``container/test.sh``, not by plain ``pytest``).

They need podman and the image; without either they fail, never skip.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
IMAGE = os.environ.get("HOLON_CONTAINER_IMAGE", "holon-agent:latest")


@pytest.fixture(scope="session")
def podman() -> str:
    """The podman binary, with the image present; a clear failure otherwise."""
    found = shutil.which("podman")
    if found is None:
        pytest.fail("podman is not installed: run container/ci-deps.sh (make image)")
    seen = subprocess.run([found, "image", "exists", IMAGE], check=False)
    if seen.returncode != 0:
        pytest.fail(f"image {IMAGE} is missing: build it with make image (container/build.sh)")
    return found


@pytest.fixture
def hello(tmp_path: Path) -> Path:
    """A git repository holding the hello example's workspace, committed."""
    repo = tmp_path / "hello"
    shutil.copytree(ROOT / "examples" / "hello" / "workspace", repo)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run([*git, "init", "-q"], cwd=repo, check=True)
    subprocess.run([*git, "add", "-A"], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "start"], cwd=repo, check=True)
    return repo
