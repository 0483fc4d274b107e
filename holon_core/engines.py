"""Where engine binaries live: ``HOLON_<NAME>_BIN``, the holon-managed engine dir, then PATH.

The managed dir holds one npm prefix per engine (``<dir>/<engine>/``), installed from the
pinned manifest and lock file that ship inside holon-core (``engine_pins/``): one lock pins
every engine together, and each engine's prefix gets the part of it that engine needs, so
installing Claude Code does not download Codex and Gemini CLI. A prefix at ``<dir>/`` itself
(the layout before per-engine prefixes) is still found. Default dir: ``$HOLON_ENGINES_DIR``,
else ``$XDG_DATA_HOME/holon/engines``, else ``~/.local/share/holon/engines``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

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


def managed_binaries(binary_name: str, env: Mapping[str, str] | None = None) -> list[Path]:
    """Where ``holon engines install`` puts ``binary_name``: its own prefix, then the shared
    prefix of older installs."""
    root = managed_engine_dir(env)
    names = [name for name, (_, binary, _) in ENGINE_PACKAGES.items() if binary == binary_name]
    prefixes = [root / name for name in names] + [root]
    return [prefix / "node_modules" / ".bin" / binary_name for prefix in prefixes]


def find_engine_binary(
    binary_name: str, override_env: str, env: Mapping[str, str] | None = None
) -> Path | None:
    """The engine executable, or None when it is nowhere to be found."""
    env = os.environ if env is None else env
    override = env.get(override_env)
    if override:
        path = Path(override).expanduser()
        return path if path.is_file() and os.access(path, os.X_OK) else None
    for managed in managed_binaries(binary_name, env):
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
    if env.get(override):
        source = "override"
    elif binary in managed_binaries(binary_name, env):
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


def engine_lock(name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The ``package.json`` and ``package-lock.json`` that install ``name`` alone.

    Cut from the shipped lock: the engine's package and everything it depends on, resolved
    the way Node resolves (nearest ``node_modules`` upward), with the same versions and
    integrity hashes, so ``npm ci`` installs exactly what the full lock would for it.
    """
    package = ENGINE_PACKAGES[name][0]
    lock = json.loads((PINS_DIR / "package-lock.json").read_text("utf-8"))
    pins = json.loads((PINS_DIR / "package.json").read_text("utf-8"))
    entries: dict[str, Any] = lock["packages"]
    spec = pins["dependencies"][package]
    manifest = {"name": f"holon-engine-{name}", "private": True, "dependencies": {package: spec}}
    keep: dict[str, Any] = {}
    todo = [f"node_modules/{package}"]
    while todo:
        path = todo.pop()
        if path in keep or path not in entries:
            continue
        keep[path] = entries[path]
        wanted = {**entries[path].get("dependencies", {})}
        wanted |= entries[path].get("optionalDependencies", {})
        todo += [_resolve(entries, path, dep) for dep in wanted]
    root = {"name": manifest["name"], "dependencies": manifest["dependencies"]}
    packages = {"": root, **dict(sorted(keep.items()))}
    subset = {**lock, "name": manifest["name"], "packages": packages}
    return manifest, subset


def _resolve(entries: Mapping[str, Any], parent: str, dependency: str) -> str:
    """The lock path Node would load ``dependency`` from when ``parent`` requires it."""
    base = parent
    while True:
        candidate = f"{base}/node_modules/{dependency}"
        if candidate in entries:
            return candidate
        cut = base.rfind("/node_modules/")
        if cut < 0:
            return f"node_modules/{dependency}"
        base = base[:cut]


def npm_install_command(npm: str, *, offline: bool = False) -> list[str]:
    """``npm ci`` as holon runs it: quiet about what a user cannot act on.

    The engines' optional native helpers (keytar, node-pty) may fail to build on a machine
    without compilers; npm skips them and the engines run without them, so npm's warnings
    about that, the audit and the funding notice are noise. Errors still print.
    """
    command = [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"]
    return [*command, "--offline"] if offline else command


def _installed_matches(prefix: Path, name: str, lock_text: bytes) -> bool:
    package, binary_name, _ = ENGINE_PACKAGES[name]
    binary = prefix / "node_modules" / ".bin" / binary_name
    lock = prefix / "package-lock.json"
    if not lock.is_file() or lock.read_bytes() != lock_text:
        return False
    return binary.is_file() and _package_version(binary, package) == pinned_versions().get(name)


def _json_bytes(data: Mapping[str, Any]) -> bytes:
    return (json.dumps(data, indent=2) + "\n").encode()


def install_engines(
    names: list[str],
    *,
    target: Path | None = None,
    force: bool = False,
    offline: bool = False,
    env: Mapping[str, str] | None = None,
) -> list[str]:
    """Install each named engine with ``npm ci`` into its own prefix; the ones installed.

    An engine already at its pin (in its prefix, or in the shared prefix of an older install)
    is left alone unless ``force``. ``offline`` installs from the npm cache only.
    """
    env = os.environ if env is None else env
    target = managed_engine_dir(env) if target is None else target
    shared = (PINS_DIR / "package-lock.json").read_bytes()
    todo = []
    for name in names:
        manifest, lock = engine_lock(name)
        if force or not (
            _installed_matches(target / name, name, _json_bytes(lock))
            or _installed_matches(target, name, shared)
        ):
            todo.append((name, manifest, lock))
    if not todo:
        return []
    _, npm = check_node(env)
    for name, manifest, lock in todo:
        prefix = target / name
        prefix.mkdir(parents=True, exist_ok=True)
        (prefix / "package.json").write_bytes(_json_bytes(manifest))
        (prefix / "package-lock.json").write_bytes(_json_bytes(lock))
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
    return [name for name, _, _ in todo]
