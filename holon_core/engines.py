"""Where engine binaries live: ``HOLON_<NAME>_BIN``, the holon-managed engine dir, then PATH.

The managed dir holds an npm prefix installed from the pinned manifest and lock file that
ship inside holon-core (``engine_pins/``). Default: ``$HOLON_ENGINES_DIR``, else
``$XDG_DATA_HOME/holon/engines``, else ``~/.local/share/holon/engines``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

PINS_DIR = Path(__file__).with_name("engine_pins")


def managed_engine_dir(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    if env.get("HOLON_ENGINES_DIR"):
        return Path(env["HOLON_ENGINES_DIR"]).expanduser()
    data_home = env.get("XDG_DATA_HOME") or str(Path(env.get("HOME", "~")) / ".local" / "share")
    return Path(data_home).expanduser() / "holon" / "engines"


def find_engine_binary(
    binary_name: str, override_env: str, env: Mapping[str, str] | None = None
) -> Path | None:
    """The engine executable, or None when it is nowhere to be found."""
    env = os.environ if env is None else env
    override = env.get(override_env)
    if override:
        path = Path(override).expanduser()
        return path if path.is_file() and os.access(path, os.X_OK) else None
    managed = managed_engine_dir(env) / "node_modules" / ".bin" / binary_name
    if managed.is_file() and os.access(managed, os.X_OK):
        return managed
    found = shutil.which(binary_name, path=env.get("PATH"))
    return Path(found) if found else None


def read_engine_version(binary: Path, timeout: float = 20.0) -> str | None:
    """First version-looking token printed by ``BINARY --version``, or None if it fails."""
    try:
        done = subprocess.run(
            [str(binary), "--version"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            env={**os.environ, "GEMINI_CLI_NO_RELAUNCH": "1", "NO_COLOR": "1"},
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    for token in done.stdout.replace("v", " ").split():
        if token[:1].isdigit() and "." in token:
            return token
    return None
