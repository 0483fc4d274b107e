"""Harbor's own ATIF validator as the tests' oracle for ``evidence/trajectory.json``.

``make oracles`` unpacks the pinned harbor wheel (``tests/oracles/requirements.txt``) into
``.tools/oracles/site``; the validator runs there as Harbor ships it
(``python -m harbor.utils.trajectory_validator FILE``), with the project's interpreter and
pydantic. A missing validator fails the test, never skips it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.oracles import oracle_site


def harbor_site() -> Path:
    return oracle_site("harbor/utils/trajectory_validator.py")


def harbor_verdict(path: Path) -> subprocess.CompletedProcess[str]:
    """Harbor's validator run on ``path``: exit 0 when valid, its errors on stderr."""
    env = {**os.environ, "PYTHONPATH": str(harbor_site())}
    return subprocess.run(
        [sys.executable, "-m", "harbor.utils.trajectory_validator", str(path)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def assert_atif_valid(path: Path) -> None:
    assert path.is_file(), f"no {path} was written"
    done = harbor_verdict(path)
    assert done.returncode == 0, f"Harbor's validator rejects {path}:\n{done.stderr}"
