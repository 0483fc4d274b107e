"""The built wheels of holon-core and holon-adapter-codex give a working probe on their own.

Built with ``uv build --offline``, installed with no index (the locked wheels of
``make wheelhouse``) and an empty uv cache into a fresh ``python3 -m venv`` that has no access
to this checkout: the entry point, not the source tree, finds the adapter.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]


def test_fresh_venv_from_wheels_probes_codex(
    tmp_path: Path,
    codex_binary: Path,
    uv_binary: str,
    offline_install: tuple[list[str], dict[str, str]],
) -> None:
    uv = uv_binary
    wheels = tmp_path / "wheels"
    env = {**os.environ, "UV_PYTHON_DOWNLOADS": "never"}
    for package in ("holon-core", "holon-adapter-codex"):
        subprocess.run(
            [uv, "build", "--offline", "-q", "--wheel", "--package", package, "-o", str(wheels)],
            cwd=REPO,
            env=env,
            check=True,
        )
    venv = tmp_path / "venv"
    subprocess.run(["python3", "-m", "venv", "--without-pip", str(venv)], check=True)
    options, offline_env = offline_install
    subprocess.run(
        [uv, "pip", "install", "-q", *options, "--python", str(venv / "bin" / "python")]
        + [str(w) for w in sorted(wheels.glob("*.whl"))],
        env={**env, **offline_env},
        check=True,
    )
    task_in, workspace, out = tmp_path / "in", tmp_path / "ws", tmp_path / "out"
    for path in (task_in, workspace, out):
        path.mkdir()
    (task_in / "spec.yaml").write_text("version: v1\nkind: Holon\ngoal: probe\n")
    probe_env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "HOLON_CODEX_BIN": str(codex_binary),
        "OPENAI_API_KEY": "sk-wheel-probe",
    }
    paths = ["--input", str(task_in), "--workspace", str(workspace), "--output", str(out)]
    done = subprocess.run(
        [str(venv / "bin" / "holon-agent"), "--engine", "codex", "--probe", *paths],
        env=probe_env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    meta = manifest["metadata"]
    assert meta["mode"] == "probe"
    assert meta["adapter"]["distribution"] == "holon-adapter-codex"
    assert meta["engine"]["version"].startswith("0.169")
    assert all(check["ok"] for check in meta["checks"]), meta["checks"]
    # The venv's own holon_adapter_codex answered, not this checkout.
    site = subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-c",
            "import holon_adapter_codex; print(holon_adapter_codex.__file__)",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert site.stdout.startswith(str(venv))
