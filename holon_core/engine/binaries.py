"""Where engine binaries live, and installing an adapter's pinned engine CLI from npm.

Lookup order: ``HOLON_<NAME>_BIN``, the holon-managed engine dir, then PATH. The managed dir
holds one npm prefix per engine (``<dir>/<engine>/``), installed with ``npm ci`` from the
``package.json`` and ``package-lock.json`` the adapter ships (:class:`EnginePackage`), so an
install is offline-reproducible and integrity-checked, and the core names no engine. A prefix
at ``<dir>/`` itself (the layout of older installs) is still found. Default dir:
``$HOLON_ENGINES_DIR``, else ``$XDG_DATA_HOME/holon/engines``, else
``~/.local/share/holon/engines``.

``subprocess`` is imported by the functions that start a process: the adapters import this
module to declare their package, so ``holon-agent --probe`` (its CPU budget,
``bench/probe_cpu.py``) imports it too, and reads an npm engine's version from disk.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from holon_core.errors import HolonError

if TYPE_CHECKING:
    from collections.abc import Mapping

MIN_NODE_MAJOR = 20


@dataclass(frozen=True, slots=True)
class EnginePackage:
    """The npm package an adapter's engine CLI comes in, declared by the adapter as data.

    ``pins`` is a directory shipped inside the adapter's distribution holding the
    ``package.json`` and ``package-lock.json`` that ``holon engines install`` runs ``npm ci``
    on; ``version`` is the exact version that lock pins (a test keeps the two equal).
    """

    #: npm package name, e.g. ``"@scope/cli"``.
    npm: str
    #: The exact pinned version.
    version: str
    #: Inclusive (min, max) major.minor versions the adapter supports.
    supported: tuple[str, str]
    #: Executable name in ``node_modules/.bin`` (and on PATH).
    binary: str
    #: Directory with the pinned ``package.json`` and ``package-lock.json``.
    pins: Path

    def lock(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads((self.pins / "package-lock.json").read_text("utf-8"))
        return data

    def locked_version(self) -> str | None:
        """The version the shipped lock resolves ``npm`` to."""
        entry = self.lock().get("packages", {}).get(f"node_modules/{self.npm}", {})
        version = entry.get("version")
        return str(version) if version else None


def managed_engine_dir(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    if env.get("HOLON_ENGINES_DIR"):
        return Path(env["HOLON_ENGINES_DIR"]).expanduser()
    data_home = env.get("XDG_DATA_HOME") or str(Path(env.get("HOME", "~")) / ".local" / "share")
    return Path(data_home).expanduser() / "holon" / "engines"


def managed_binaries(
    binary_name: str, env: Mapping[str, str] | None = None, *, engine: str | None = None
) -> list[Path]:
    """Where ``holon engines install`` puts ``binary_name``: the engine's own prefix (named
    ``engine``, default the binary's name), then the shared prefix of older installs."""
    root = managed_engine_dir(env)
    prefixes = [root / (engine or binary_name), root]
    return [prefix / "node_modules" / ".bin" / binary_name for prefix in prefixes]


def find_engine_binary(
    binary_name: str,
    override_env: str,
    env: Mapping[str, str] | None = None,
    *,
    engine: str | None = None,
) -> Path | None:
    """The engine executable, or None when it is nowhere to be found."""
    env = os.environ if env is None else env
    override = env.get(override_env)
    if override:
        path = Path(override).expanduser()
        return path if path.is_file() and os.access(path, os.X_OK) else None
    for managed in managed_binaries(binary_name, env, engine=engine):
        if managed.is_file() and os.access(managed, os.X_OK):
            return managed
    found = shutil.which(binary_name, path=env.get("PATH"))
    return Path(found) if found else None


def read_engine_version(binary: Path, timeout: float = 20.0) -> str | None:
    """First version-looking token printed by ``BINARY --version``, or None if it fails."""
    import subprocess

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


def npm_package_version(binary: Path, package: str) -> str | None:
    """The version in the ``package.json`` of the npm package ``package`` that owns ``binary``.

    Starting an engine to ask ``--version`` costs 0.1 to 0.7 s (and some CLIs write into
    ``$HOME`` when asked); an npm install carries the answer on disk. None when ``binary`` is
    not inside that package (native installers, wrappers): then ask the binary.
    """
    try:
        real = binary.resolve(strict=True)
    except (OSError, RuntimeError):
        return None
    for folder in real.parents:
        manifest = folder / "package.json"
        if manifest.is_file():
            try:
                data = json.loads(manifest.read_text("utf-8"))
            except (OSError, ValueError):
                return None
            if isinstance(data, dict) and data.get("name") == package:
                version = data.get("version")
                return version if isinstance(version, str) and version else None
        if folder.name == "node_modules":
            break
    return None


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


def override_variable(name: str) -> str:
    """``HOLON_<NAME>_BIN``: the variable that points holon at engine ``name``'s binary."""
    return f"HOLON_{name.upper().replace('-', '_')}_BIN"


def engine_status(
    name: str, package: EnginePackage, env: Mapping[str, str] | None = None
) -> EngineStatus:
    env = os.environ if env is None else env
    override = override_variable(name)
    pinned = package.locked_version()
    binary = find_engine_binary(package.binary, override, env, engine=name)
    if binary is None:
        return EngineStatus(name, package.npm, pinned, None, None, "missing")
    if env.get(override):
        source = "override"
    elif binary in managed_binaries(package.binary, env, engine=name):
        source = "managed"
    else:
        source = "path"
    version = npm_package_version(binary, package.npm) or read_engine_version(binary)
    return EngineStatus(name, package.npm, pinned, version, str(binary), source)


def check_node(env: Mapping[str, str] | None = None) -> tuple[str, str]:
    """Paths of node and npm; raises HolonError when either is missing or node is too old."""
    import subprocess

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


def npm_install_command(npm: str, *, offline: bool = False) -> list[str]:
    """``npm ci`` as holon runs it: quiet about what a user cannot act on.

    The engines' optional native helpers (keytar, node-pty) may fail to build on a machine
    without compilers; npm skips them and the engines run without them, so npm's warnings
    about that, the audit and the funding notice are noise. Errors still print.
    """
    command = [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"]
    return [*command, "--offline"] if offline else command


def _installed_matches(prefix: Path, package: EnginePackage) -> bool:
    """The prefix holds every locked package at its locked version and hash, and the binary."""
    binary = prefix / "node_modules" / ".bin" / package.binary
    try:
        installed = json.loads((prefix / "package-lock.json").read_text("utf-8"))["packages"]
    except (OSError, ValueError, KeyError, TypeError):
        return False
    wanted = {path: entry for path, entry in package.lock()["packages"].items() if path}
    if any(installed.get(path) != entry for path, entry in wanted.items()):
        return False
    return binary.is_file() and npm_package_version(binary, package.npm) == package.version


def install_engines(
    packages: Mapping[str, EnginePackage],
    *,
    target: Path | None = None,
    force: bool = False,
    offline: bool = False,
    env: Mapping[str, str] | None = None,
) -> list[str]:
    """``npm ci`` each engine's shipped pin into its own prefix; the names installed.

    An engine already at its pin (in its prefix, or in the shared prefix of an older install)
    is left alone unless ``force``. ``offline`` installs from the npm cache only.
    """
    env = os.environ if env is None else env
    target = managed_engine_dir(env) if target is None else target
    todo = [
        (name, package)
        for name, package in packages.items()
        if force
        or not (_installed_matches(target / name, package) or _installed_matches(target, package))
    ]
    if not todo:
        return []
    import subprocess

    _, npm = check_node(env)
    for name, package in todo:
        prefix = target / name
        prefix.mkdir(parents=True, exist_ok=True)
        for pin in ("package.json", "package-lock.json"):
            shutil.copyfile(package.pins / pin, prefix / pin)
        done = subprocess.run(
            npm_install_command(npm, offline=offline),
            cwd=prefix,
            stdin=subprocess.DEVNULL,
            env=dict(env),
            check=False,
        )
        if done.returncode != 0:
            raise HolonError(
                f"npm ci failed for {name} in {prefix} (exit {done.returncode})",
                hint="check access to the npm registry, then run "
                f"`holon engines install --force {name}`",
            )
    return [name for name, _ in todo]
