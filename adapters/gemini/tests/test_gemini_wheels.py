"""The built wheels of holon-core and holon-adapter-gemini give a working probe in a fresh venv.

Dependencies come from the locked wheels of ``make wheelhouse``, with no index and an empty uv
cache: the test needs no network and nothing an earlier run left in a cache.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from holon_core.testing.agent_run import agent_env

REPO = Path(__file__).resolve().parents[3]


def run(
    argv: list[str], cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)


def test_fresh_venv_probe_from_wheels(
    tmp_path: Path,
    gemini_binary: Path,
    uv_binary: str,
    offline_install: tuple[list[str], dict[str, str]],
) -> None:
    uv = uv_binary
    dist = tmp_path / "dist"
    for package in ("holon-core", "holon-adapter-gemini"):
        argv = [uv, "build", "--offline", "-q", "--wheel", "--package", package, "-o", str(dist)]
        done = run(argv, cwd=REPO)
        assert done.returncode == 0, done.stderr
    wheels = sorted(str(p) for p in dist.glob("*.whl"))
    assert len(wheels) == 2, wheels
    venv = tmp_path / "venv"
    python = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable
    assert run([python, "-m", "venv", str(venv)]).returncode == 0
    options, offline_env = offline_install
    done = run(
        [uv, "pip", "install", *options, "-q", "--python", str(venv / "bin/python"), *wheels],
        env={**os.environ, **offline_env},
    )
    assert done.returncode == 0, done.stderr
    spec_dir, out, ws = tmp_path / "in", tmp_path / "out", tmp_path / "ws"
    for path in (spec_dir, out, ws):
        path.mkdir()
    (spec_dir / "spec.yaml").write_text("version: v1\nkind: Holon\ngoal: probe\n", "utf-8")
    env = agent_env({"GEMINI_API_KEY": "probe-key", "HOLON_GEMINI_BIN": str(gemini_binary)})
    argv = [str(venv / "bin/holon-agent"), "--engine", "gemini", "--probe"]
    argv += ["--input", str(spec_dir), "--output", str(out), "--workspace", str(ws)]
    done = run(argv, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["outcome"] == "success"
    meta = manifest["metadata"]
    assert meta["mode"] == "probe"
    assert meta["adapter"]["distribution"] == "holon-adapter-gemini"
    assert meta["engine"]["version"] == "0.61.0"
    assert all(check["ok"] for check in meta["checks"])
