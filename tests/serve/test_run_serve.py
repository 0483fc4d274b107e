"""``holon run --serve`` gives the record a one-shot ``holon run`` gives."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HELLO = Path(__file__).resolve().parents[2] / "examples" / "hello"


def _run(tmp: Path, name: str, *extra: str) -> tuple[int, Path]:
    out = tmp / name
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOLON_")}
    argv = [sys.executable, "-m", "holon_core", "run", str(HELLO / "spec.yaml"), "--quiet"]
    argv += ["--workspace", str(HELLO / "workspace"), "--engine", "replay"]
    argv += ["--runs-dir", str(tmp / "runs"), "--output", str(out), *extra]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300, check=False)
    assert done.returncode in (0, 1, 2), done.stderr
    return done.returncode, out


def test_run_through_serve_records_what_one_shot_records(tmp_path):
    code, served = _run(tmp_path, "served", "--serve")
    plain_code, plain = _run(tmp_path, "plain")
    assert code == plain_code == 0
    manifest = json.loads((served / "manifest.json").read_text())
    expected = json.loads((plain / "manifest.json").read_text())
    assert manifest["metadata"]["mode"] == "serve" and expected["metadata"]["mode"] == "run"
    assert (manifest["outcome"], manifest["metadata"]["reason"]) == ("success", "ok")
    assert (served / "diff.patch").read_text() == (plain / "diff.patch").read_text()
    assert set(expected["artifacts"]) <= set(manifest["artifacts"])
    turn = json.loads((served / "turn.json").read_text())
    assert turn["output_dir"] == str(served.resolve()) and turn["outcome"] == "success"
