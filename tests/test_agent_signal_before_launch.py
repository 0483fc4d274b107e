"""A stop signal while adapter code blocks in launch(), before the engine process exists.

holon-agent's handlers only set the run's cancel event, which the pipeline reads between
steps: an adapter whose launch() does slow work (an install, a warm-up) used to hold a
SIGTERM until it returned. Now the signal interrupts it: a cancelled run with a manifest,
and nothing the adapter started is left running.
"""

from __future__ import annotations

import signal
import time
from pathlib import Path

import psutil
import pytest

from holon_core.testing import finish_agent, make_task, start_agent

PLUGINS = str(Path(__file__).parent / "plugins")


def _wait_for(path: Path, limit: float = 60.0) -> None:
    deadline = time.monotonic() + limit
    while not path.exists():
        assert time.monotonic() < deadline, "launch() never started"
        time.sleep(0.05)


def _sleepers() -> list[psutil.Process]:
    return [
        p
        for p in psutil.process_iter(["cmdline", "status"])
        if p.info["cmdline"] in (["sleep", "318"], ["sleep", "319"])
        and p.info["status"] != psutil.STATUS_ZOMBIE
    ]


@pytest.mark.parametrize(
    ("sig", "blocking"),
    [(signal.SIGTERM, "python"), (signal.SIGINT, "python"), (signal.SIGTERM, "child")],
)
def test_a_signal_during_launch_cancels_the_run(tmp_path, assert_valid_manifest, sig, blocking):
    marker = tmp_path / "launch-started"
    task = make_task(tmp_path / "t", replay=[{"say": "never"}])
    env = {
        "HOLON_PLUGINS": "slow_launch",
        "PYTHONPATH": PLUGINS,
        "SLOW_LAUNCH": blocking,
        "SLOW_LAUNCH_MARKER": str(marker),
    }
    proc = start_agent(task, "slow-launch", env=env)
    try:
        _wait_for(marker)
        proc.send_signal(sig)
        # The adapter would block for 300 s; a run that waits for it fails here.
        result = finish_agent(task, proc, timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert result.exit_code == 1, result.stderr
    manifest = assert_valid_manifest(result.manifest)
    assert manifest["metadata"]["reason"] == "cancelled", manifest["metadata"]
    assert "before the engine started" in manifest["error"]
    assert not [e for e in result.events if e.get("type") == "tool_call"]
    assert not _sleepers()
