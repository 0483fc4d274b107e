"""``holon report`` as a user runs it: the real CLI in a process, with the test's own HOME."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.runner import kit as runner_kit


def holon_report(tmp_path: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "holon_core", "report", *map(str, args)],
        env=runner_kit.base_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
