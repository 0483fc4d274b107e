"""The admission's room probe under mounts that come and go on the host (containers starting
and stopping beside a CI job): it must not refuse a machine that can build the room.

The probe bound all of ``/``, which remounts every mount under it read-only; a mount removed
meanwhile failed the probe with "Unable to apply mount flags: ... No such file or directory"
(5 runs in 100 here, found as a random ``sandbox_unavailable`` in the suite while podman ran).
The churn happens in a user and mount namespace of the test's own (``unshare``), so it needs
no root and never touches the host's mounts; the probe runs in that namespace too.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

CHURN_AND_PROBE = textwrap.dedent(
    """
    import os, subprocess, sys, threading
    from holon_core.sandbox import bwrap

    root = sys.argv[1]
    stop = threading.Event()

    def churn():
        while not stop.is_set():
            for i in range(20):
                os.makedirs(f"{root}/m{i}", exist_ok=True)
                subprocess.run(["mount", "-t", "tmpfs", "none", f"{root}/m{i}"], check=True)
            for i in range(20):
                subprocess.run(["umount", f"{root}/m{i}"], check=True)
                os.rmdir(f"{root}/m{i}")

    thread = threading.Thread(target=churn)
    thread.start()
    problems = []
    try:
        for _ in range(int(sys.argv[2])):
            bwrap._probe.cache_clear()
            found = bwrap.probe({"PATH": os.environ["PATH"]})
            if found.problem is not None:
                problems.append(found.problem)
    finally:
        stop.set()
        thread.join()
    print(len(problems), problems[:1])
    """
)


def test_mounts_coming_and_going_do_not_fail_the_probe(tmp_path: Path) -> None:
    churn = tmp_path / "churn"
    churn.mkdir()
    done = subprocess.run(
        ["unshare", "--user", "--map-root-user", "--mount", "--propagation", "private",
         sys.executable, "-c", CHURN_AND_PROBE, str(churn), "60"],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("0 "), done.stdout
