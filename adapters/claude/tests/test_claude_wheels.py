"""``pip install holon-adapter-claude`` in an empty environment gives a working probe.

Builds the two wheels from this checkout, installs them into a fresh virtual environment
made with the machine's Python, and runs that environment's ``holon-agent --probe``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[3]


def sh(*argv: str | Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in argv],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.fixture(scope="module")
def fresh_venv(tmp_path_factory: pytest.TempPathFactory, uv_binary: str) -> Path:
    uv = uv_binary
    root = tmp_path_factory.mktemp("wheels")
    wheels = root / "dist"
    for package in ("holon-core", "holon-adapter-claude"):
        done = sh(uv, "build", "--wheel", "--package", package, "-o", wheels, "-q")
        assert done.returncode == 0, done.stderr
    venv = root / "venv"
    python = shutil.which("python3") or sys.executable
    assert sh(python, "-m", "venv", venv).returncode == 0
    done = sh(
        uv, "pip", "install", "-q", "--python", venv / "bin" / "python", *wheels.glob("*.whl")
    )
    assert done.returncode == 0, done.stderr
    return venv


def probe(venv: Path, tmp_path: Path, **extra: str) -> tuple[int, dict[str, Any]]:
    for name in ("input", "output", "workspace"):
        (tmp_path / name).mkdir()
    (tmp_path / "input" / "spec.yaml").write_text("version: v1\nkind: Holon\ngoal: probe\n")
    engines = Path(os.environ.get("HOME", "/root")) / ".local" / "share" / "holon" / "engines"
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "HOLON_ENGINES_DIR": os.environ.get("HOLON_ENGINES_DIR", str(engines)),
        **extra,
    }
    done = sh(
        venv / "bin" / "holon-agent", "--engine", "claude", "--probe",
        "--input", tmp_path / "input", "--output", tmp_path / "output",
        "--workspace", tmp_path / "workspace", env=env,
    )  # fmt: skip
    manifest = json.loads((tmp_path / "output" / "manifest.json").read_text())
    return done.returncode, manifest


@pytest.mark.engine("claude")
def test_probe_from_installed_wheels(fresh_venv: Path, tmp_path: Path) -> None:
    code, manifest = probe(fresh_venv, tmp_path, ANTHROPIC_API_KEY="sk-probe")
    meta = manifest["metadata"]
    assert code == 0 and manifest["outcome"] == "success", manifest
    assert meta["mode"] == "probe"
    assert meta["adapter"]["distribution"] == "holon-adapter-claude"
    assert meta["engine"]["version"] == "2.1.197"


@pytest.mark.engine("claude")
def test_probe_without_credentials_fails_clearly(fresh_venv: Path, tmp_path: Path) -> None:
    code, manifest = probe(fresh_venv, tmp_path)
    assert code == 1 and manifest["outcome"] == "failure"
    checks = {c["name"]: c for c in manifest["metadata"]["checks"]}
    assert checks["credentials"]["ok"] is False
    assert "ANTHROPIC_API_KEY" in checks["credentials"]["detail"]
    assert "ANTHROPIC_API_KEY" in str(manifest["error"])
