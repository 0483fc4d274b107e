"""The image as CI and Kubernetes use it: ``--probe``, and ``podman stop`` mid-run."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
import uuid
from pathlib import Path

from conftest import IMAGE, ROOT


def volumes(tmp: Path, script: str) -> tuple[list[str], Path]:
    """The four /holon dirs, writable by the image's own (non-root) user."""
    dirs = {name: tmp / name for name in ("input", "workspace", "output", "state")}
    shutil.copytree(ROOT / "examples" / "hello" / "workspace", dirs["workspace"])
    for name in ("input", "output", "state"):
        dirs[name].mkdir()
    shutil.copy(ROOT / "examples" / "hello" / "spec.yaml", dirs["input"] / "spec.yaml")
    (dirs["input"] / "context").mkdir()
    (dirs["input"] / "context" / "replay.yaml").write_text(script)
    for name in ("workspace", "output", "state"):
        dirs[name].chmod(0o777)
    args = []
    for name, path in dirs.items():
        args += ["--volume", f"{path}:/holon/{name}:{'ro' if name == 'input' else 'rw'}"]
    return args, dirs["output"]


def test_probe_in_the_image(podman: str, tmp_path: Path) -> None:
    mounts, output = volumes(tmp_path, "- say: hi\n")
    done = subprocess.run(
        [
            podman,
            "run",
            "--rm",
            "--network",
            "none",
            *mounts,
            IMAGE,
            "--probe",
            "--engine",
            "replay",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads((output / "manifest.json").read_text())["outcome"] == "success"


def test_podman_stop_mid_run_leaves_a_cancelled_manifest(podman: str, tmp_path: Path) -> None:
    """holon-agent is PID 1: SIGTERM reaches it, and the record is written within the grace."""
    script = '- run: "(setsid sleep 300 &) ; sleep 300 & sleep 1; echo started"\n- run: sleep 300\n'
    mounts, output = volumes(tmp_path, script)
    name = f"holon-test-{uuid.uuid4().hex[:8]}"
    subprocess.run(
        [
            podman,
            "run",
            "--detach",
            "--name",
            name,
            "--network",
            "none",
            *mounts,
            IMAGE,
            "--engine",
            "replay",
        ],
        check=True,
        capture_output=True,
    )
    try:
        events = output / "evidence" / "events.ndjson"
        for _ in range(600):  # until the engine is in its long command
            if events.exists() and "started" in events.read_text():
                break
            time.sleep(0.1)
        time.sleep(0.5)
        top = subprocess.run(
            [podman, "top", name, "pid", "comm"], capture_output=True, text=True, check=True
        )
        assert "holon-agent" in top.stdout.splitlines()[1], top.stdout  # PID 1
        subprocess.run([podman, "stop", "--time", "10", name], check=True, capture_output=True)
        state = subprocess.run(
            [podman, "inspect", name, "--format", "{{.State.ExitCode}}"],
            capture_output=True,
            text=True,
            check=True,
        )
    finally:
        subprocess.run([podman, "rm", "--force", name], capture_output=True, check=False)
    manifest = json.loads((output / "manifest.json").read_text())
    assert manifest["outcome"] == "failure"
    assert manifest["metadata"]["reason"] == "cancelled"
    assert state.stdout.strip() == "1"  # the agent's own exit code, not 137 (SIGKILL)
