"""``holon engines install NAME`` installs that engine only, quietly, at its pin.

The install test runs the real npm against the real pinned lock, offline from the npm cache
that ``make engines`` filled (no download in a test)."""

from __future__ import annotations

import json
import platform
import sys
from pathlib import Path

from holon_core.engine.binaries import EnginePackage, find_engine_binary, override_variable
from holon_core.hooks.manager import load_plugins

from .kit import run, script


def packages() -> dict[str, EnginePackage]:
    """Every installed adapter's engine package (the pins ``holon engines install`` reads)."""
    plugins = load_plugins()
    found = {n: plugins.get_engine(n).engine_package for n in plugins.engine_names()}
    return {name: package for name, package in found.items() if package is not None}


def test_each_adapter_ships_the_lock_of_the_version_it_declares() -> None:
    assert {"claude", "codex", "gemini"} <= set(packages())
    for name, package in packages().items():
        manifest = json.loads((package.pins / "package.json").read_text())
        lock = package.lock()
        assert manifest["dependencies"] == {package.npm: package.version}, name
        assert lock["packages"][""]["dependencies"] == manifest["dependencies"], name
        assert package.locked_version() == package.version, name
        for path, entry in lock["packages"].items():  # npm ci checks every download
            if path and not entry.get("link") and installs_here(entry):
                assert entry.get("integrity", "").startswith("sha512-"), (name, path)


def installs_here(entry: dict[str, object]) -> bool:
    """Whether npm would download this lock entry on this machine (an optional package for
    another OS or CPU is skipped; the registry this lock was cut from serves only this one)."""
    node_os = {"linux": "linux", "darwin": "darwin", "win32": "win32"}.get(
        sys.platform, sys.platform
    )
    node_cpu = {"x86_64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(
        platform.machine(), platform.machine()
    )
    libc = "glibc" if platform.libc_ver()[0] == "glibc" else "musl"
    for key, here in (("os", node_os), ("cpu", node_cpu), ("libc", libc)):
        wanted = entry.get(key)
        if isinstance(wanted, list) and here not in wanted:
            return False
    return True


def test_install_claude_installs_claude_only_and_quietly(tmp_path: Path) -> None:
    pinned = packages()["claude"].version
    engines = tmp_path / "engines"
    env = {"HOLON_ENGINES_DIR": str(engines)}
    done = run([script("holon"), "engines", "install", "claude", "--offline"], env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "npm warn" not in (done.stdout + done.stderr).lower()
    assert f"claude {pinned}: installed" in done.stdout
    assert sorted(p.name for p in engines.iterdir()) == ["claude"]
    listed = run([script("holon"), "engines", "list", "--json"], env=env)
    status = {e["name"]: e for e in json.loads(listed.stdout)}
    assert status["claude"]["source"] == "managed" and status["claude"]["matches_pin"]
    assert status["claude"]["path"] == str(engines / "claude" / "node_modules" / ".bin" / "claude")
    binary = run([status["claude"]["path"], "--version"], env={"DISABLE_AUTOUPDATER": "1"})
    assert binary.returncode == 0 and pinned in binary.stdout
    again = run([script("holon"), "engines", "install", "claude", "--offline"], env=env)
    assert again.returncode == 0 and "already up to date" in again.stdout


def test_an_install_in_the_older_shared_layout_stays_up_to_date(tmp_path: Path) -> None:
    """``make engines`` (``install all``) must not reinstall engines a shared prefix holds."""
    root = tmp_path / "engines"
    bin_dir = root / "node_modules" / ".bin"
    bin_dir.mkdir(parents=True)
    shared: dict[str, object] = {}
    for name, package in packages().items():
        locked = package.lock()["packages"]
        real = find_engine_binary(package.binary, override_variable(name), engine=name)
        assert real is not None, f"{name} is not installed (run make engines)"
        prefix = root
        if any(path and shared.get(path, entry) != entry for path, entry in locked.items()):
            # an engine whose lock pins a package another one pins otherwise (acp-codex's
            # @openai/codex) never shared the prefix: it sits in its own, the current layout
            prefix = root / name
            (prefix / "node_modules" / ".bin").mkdir(parents=True)
            (prefix / "package-lock.json").write_text(json.dumps({"packages": locked}))
        else:
            shared |= locked
        (prefix / "node_modules" / ".bin" / package.binary).symlink_to(real.resolve())
    (root / "package-lock.json").write_text(json.dumps({"packages": shared}))
    env = {"HOLON_ENGINES_DIR": str(root), "PATH": str(tmp_path / "no-npm-here")}
    env |= {override_variable(name): "" for name in packages()}
    done = run([script("holon"), "engines", "install", "all"], env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("already up to date") == len(packages())
    listed = json.loads(run([script("holon"), "engines", "list", "--json"], env=env).stdout)
    assert {e["source"] for e in listed} == {"managed"}
    assert all(e["matches_pin"] for e in listed)


def test_install_of_an_engine_no_adapter_ships_names_the_known_ones(tmp_path: Path) -> None:
    env = {"HOLON_ENGINES_DIR": str(tmp_path / "engines")}
    done = run([script("holon"), "engines", "install", "no-such-engine"], env=env)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert 'no installed adapter ships an engine named "no-such-engine"' in done.stderr
    assert "pip install holon-adapter-no-such-engine" in done.stderr and "claude" in done.stderr
    assert not (tmp_path / "engines").exists()


def test_install_without_npm_names_the_problem(tmp_path: Path) -> None:
    env = {"HOLON_ENGINES_DIR": str(tmp_path / "engines"), "PATH": str(tmp_path)}
    done = run([script("holon"), "engines", "install", "codex"], env=env)
    assert done.returncode == 1
    assert "npm not found" in done.stderr or "node not found" in done.stderr
    assert "Node.js 20" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "engines" / "codex" / "node_modules").exists()


def _in_place(root: Path, names: list[str]) -> dict[str, str]:
    """The engines ``names`` already installed at their pins under ``root`` (each prefix
    holds its lock and a link to the engine ``make engines`` installed), and an environment
    with no npm: an install that wanted to download would fail."""
    for name in names:
        package = packages()[name]
        prefix = root / name
        (prefix / "node_modules" / ".bin").mkdir(parents=True)
        (prefix / "package-lock.json").write_text(
            json.dumps({"packages": package.lock()["packages"]})
        )
        real = find_engine_binary(package.binary, override_variable(name), engine=name)
        assert real is not None, f"{name} is not installed (run make engines)"
        (prefix / "node_modules" / ".bin" / package.binary).symlink_to(real.resolve())
    env = {"HOLON_ENGINES_DIR": str(root), "PATH": str(root / "no-npm-here")}
    return env | {override_variable(name): "" for name in packages()}


def test_an_acp_profile_installs_the_cli_it_runs(tmp_path: Path) -> None:
    """``acp-gemini`` runs gemini's CLI; ``acp-claude`` its own ACP server and claude."""
    root = tmp_path / "engines"
    env = _in_place(root, ["gemini", "claude", "acp-claude"])
    done = run([script("holon"), "engines", "install", "acp-gemini"], env=env)
    assert done.returncode == 0, done.stderr
    gemini = packages()["gemini"].version
    assert done.stdout.splitlines() == [f"gemini {gemini}: already up to date in {root}"]
    done = run([script("holon"), "engines", "install", "acp-claude"], env=env)
    assert done.returncode == 0, done.stderr
    assert sorted(line.split(" ")[0] for line in done.stdout.splitlines()) == [
        "acp-claude",
        "claude",
    ]
    assert done.stdout.count("already up to date") == 2


def test_the_generic_acp_engine_has_nothing_to_install(tmp_path: Path) -> None:
    env = {"HOLON_ENGINES_DIR": str(tmp_path / "engines")}
    done = run([script("holon"), "engines", "install", "acp"], env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("acp: nothing to install"), done.stdout
    assert not (tmp_path / "engines").exists()
