"""Where engine binaries live: ``HOLON_<NAME>_BIN``, the holon-managed engine dir, then PATH.

The managed dir holds an npm prefix installed from the pinned manifest and lock file that
ship inside holon-core (``engine_pins/``). Default: ``$HOLON_ENGINES_DIR``, else
``$XDG_DATA_HOME/holon/engines``, else ``~/.local/share/holon/engines``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from holon_core.errors import HolonError

if TYPE_CHECKING:
    from collections.abc import Mapping

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
            env={**os.environ, "NO_COLOR": "1"},
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    for token in done.stdout.replace("v", " ").split():
        if token[:1].isdigit() and "." in token:
            return token
    return None


# --- pinned engines: what holon supports, what is installed, and installing it -------------


def _engine_packages() -> dict[str, tuple[str, str, str]]:
    """Engine name -> (npm package, binary, override variable), from the pins' data.

    The core names no engine in code: which engines are pinned is data shipped beside the
    lock file (``holon.engines`` in engine_pins/package.json).
    """
    table = json.loads((PINS_DIR / "package.json").read_text("utf-8"))["holon"]["engines"]
    return {
        name: (entry["package"], entry["bin"], f"HOLON_{name.upper()}_BIN")
        for name, entry in table.items()
    }


#: Engine name -> (npm package, binary name, override variable).
ENGINE_PACKAGES: dict[str, tuple[str, str, str]] = _engine_packages()
MIN_NODE_MAJOR = 20


@dataclass(frozen=True, slots=True)
class EngineStatus:
    """One engine as ``holon engines list`` shows it."""

    name: str
    package: str
    pinned: str | None
    installed: str | None
    path: str | None
    #: "override" (HOLON_<NAME>_BIN), "managed" (holon engines install), "path", or "missing".
    source: str

    @property
    def matches_pin(self) -> bool:
        return self.installed is not None and self.installed == self.pinned


def pinned_versions() -> dict[str, str]:
    """Engine name -> exact version in the shipped lock file."""
    lock = json.loads((PINS_DIR / "package-lock.json").read_text("utf-8"))
    packages = lock.get("packages", {})
    found: dict[str, str] = {}
    for name, (package, _, _) in ENGINE_PACKAGES.items():
        entry = packages.get(f"node_modules/{package}")
        if entry and entry.get("version"):
            found[name] = str(entry["version"])
    return found


def _package_version(binary: Path, package: str) -> str | None:
    """The version in the package.json of the npm package that owns ``binary``."""
    try:
        real = binary.resolve()
    except OSError:
        return None
    for folder in real.parents:
        manifest = folder / "package.json"
        if manifest.is_file():
            try:
                data = json.loads(manifest.read_text("utf-8"))
            except (OSError, ValueError):
                return None
            if data.get("name") == package:
                return str(data.get("version")) if data.get("version") else None
        if folder.name == "node_modules":
            break
    return None


def engine_status(name: str, env: Mapping[str, str] | None = None) -> EngineStatus:
    env = os.environ if env is None else env
    package, binary_name, override = ENGINE_PACKAGES[name]
    pinned = pinned_versions().get(name)
    binary = find_engine_binary(binary_name, override, env)
    if binary is None:
        return EngineStatus(name, package, pinned, None, None, "missing")
    managed = managed_engine_dir(env) / "node_modules" / ".bin" / binary_name
    if env.get(override):
        source = "override"
    elif binary == managed:
        source = "managed"
    else:
        source = "path"
    version = _package_version(binary, package) or read_engine_version(binary)
    return EngineStatus(name, package, pinned, version, str(binary), source)


def list_engines(env: Mapping[str, str] | None = None) -> list[EngineStatus]:
    return [engine_status(name, env) for name in ENGINE_PACKAGES]


def check_node(env: Mapping[str, str] | None = None) -> tuple[str, str]:
    """Paths of node and npm; raises HolonError when either is missing or node is too old."""
    env = os.environ if env is None else env
    node = shutil.which("node", path=env.get("PATH"))
    npm = shutil.which("npm", path=env.get("PATH"))
    hint = f"install Node.js {MIN_NODE_MAJOR} or newer (with npm) and put it on PATH"
    if node is None or npm is None:
        missing = "node" if node is None else "npm"
        raise HolonError(f"{missing} not found: the engines are npm packages", hint=hint)
    try:
        out = subprocess.run(
            [node, "--version"], capture_output=True, text=True, timeout=30, check=True
        ).stdout.strip()
        major = int(out.lstrip("v").split(".", 1)[0])
    except (OSError, ValueError, subprocess.SubprocessError) as exc:
        raise HolonError(f"cannot read the node version ({exc})", hint=hint) from exc
    if major < MIN_NODE_MAJOR:
        raise HolonError(f"node {out} is too old for the pinned engines", hint=hint)
    return node, npm


def _installed_matches(target: Path, names: list[str]) -> bool:
    pins = pinned_versions()
    lock = target / "package-lock.json"
    if not lock.is_file() or lock.read_bytes() != (PINS_DIR / "package-lock.json").read_bytes():
        return False
    for name in names:
        package, binary_name, _ = ENGINE_PACKAGES[name]
        binary = target / "node_modules" / ".bin" / binary_name
        if not binary.is_file() or _package_version(binary, package) != pins.get(name):
            return False
    return True


def install_engines(
    names: list[str],
    *,
    target: Path | None = None,
    force: bool = False,
    env: Mapping[str, str] | None = None,
) -> bool:
    """Install the pinned engines with ``npm ci`` into the managed dir; False when up to date.

    The lock file pins all three engines together, so installing any one installs all of
    them: ``npm ci`` cannot install part of a lock file, and one lock keeps them consistent.
    """
    env = os.environ if env is None else env
    target = managed_engine_dir(env) if target is None else target
    if not force and _installed_matches(target, names):
        return False
    _, npm = check_node(env)
    target.mkdir(parents=True, exist_ok=True)
    for file_name in ("package.json", "package-lock.json"):
        shutil.copyfile(PINS_DIR / file_name, target / file_name)
    done = subprocess.run(
        [npm, "ci", "--no-audit", "--no-fund"],
        cwd=target,
        stdin=subprocess.DEVNULL,
        env=dict(env),
        check=False,
    )
    if done.returncode != 0:
        raise HolonError(
            f"npm ci failed in {target} (exit {done.returncode})",
            hint="check access to the npm registry, then run `holon engines install --force`",
        )
    return True
