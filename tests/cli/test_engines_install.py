"""``holon engines install NAME`` installs that engine only, quietly, at its pin.

The install test runs the real npm against the real pinned lock, offline from the npm cache
that ``make engines`` filled (no download in a test)."""

from __future__ import annotations

import json
from pathlib import Path

from holon_core.engines import (
    ENGINE_PACKAGES,
    PINS_DIR,
    engine_lock,
    find_engine_binary,
    pinned_versions,
)

from .kit import run, script


def test_each_engine_gets_its_part_of_the_one_lock() -> None:
    full = json.loads((PINS_DIR / "package-lock.json").read_text())["packages"]
    seen: set[str] = set()
    for name, (package, _, _) in ENGINE_PACKAGES.items():
        manifest, lock = engine_lock(name)
        assert manifest["dependencies"] == {package: pinned_versions()[name]}
        assert lock["packages"][""]["dependencies"] == manifest["dependencies"]
        paths = set(lock["packages"]) - {""}
        assert f"node_modules/{package}" in paths
        for path in paths:  # same versions and hashes as the shipped lock
            assert lock["packages"][path] == full[path]
        for other, (other_package, _, _) in ENGINE_PACKAGES.items():
            if other != name:
                assert f"node_modules/{other_package}" not in paths
        seen |= paths
    assert seen == set(full) - {""}  # nothing of the lock is left out


def test_install_claude_installs_claude_only_and_quietly(tmp_path: Path) -> None:
    engines = tmp_path / "engines"
    env = {"HOLON_ENGINES_DIR": str(engines)}
    done = run([script("holon"), "engines", "install", "claude", "--offline"], env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "npm warn" not in (done.stdout + done.stderr).lower()
    assert f"claude {pinned_versions()['claude']}: installed" in done.stdout
    assert sorted(p.name for p in engines.iterdir()) == ["claude"]
    listed = run([script("holon"), "engines", "list", "--json"], env=env)
    status = {e["name"]: e for e in json.loads(listed.stdout)}
    assert status["claude"]["source"] == "managed" and status["claude"]["matches_pin"]
    assert status["claude"]["path"] == str(engines / "claude" / "node_modules" / ".bin" / "claude")
    binary = run([status["claude"]["path"], "--version"], env={"DISABLE_AUTOUPDATER": "1"})
    assert binary.returncode == 0 and pinned_versions()["claude"] in binary.stdout
    again = run([script("holon"), "engines", "install", "claude", "--offline"], env=env)
    assert again.returncode == 0 and "already up to date" in again.stdout


def test_an_install_in_the_older_shared_layout_stays_up_to_date(tmp_path: Path) -> None:
    """``make engines`` (``install all``) must not reinstall engines a shared prefix holds."""
    root = tmp_path / "engines"
    bin_dir = root / "node_modules" / ".bin"
    bin_dir.mkdir(parents=True)
    (root / "package-lock.json").write_bytes((PINS_DIR / "package-lock.json").read_bytes())
    for _, (_, binary_name, override) in ENGINE_PACKAGES.items():
        real = find_engine_binary(binary_name, override)
        assert real is not None, f"{binary_name} is not installed (run make engines)"
        (bin_dir / binary_name).symlink_to(real.resolve())
    env = {"HOLON_ENGINES_DIR": str(root), "PATH": str(tmp_path / "no-npm-here")}
    env |= {override: "" for _, _, override in ENGINE_PACKAGES.values()}
    done = run([script("holon"), "engines", "install", "all"], env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("already up to date") == len(ENGINE_PACKAGES)
    listed = json.loads(run([script("holon"), "engines", "list", "--json"], env=env).stdout)
    assert {e["source"] for e in listed} == {"managed"}
    assert all(e["matches_pin"] for e in listed)


def test_install_without_npm_names_the_problem(tmp_path: Path) -> None:
    env = {"HOLON_ENGINES_DIR": str(tmp_path / "engines"), "PATH": str(tmp_path)}
    done = run([script("holon"), "engines", "install", "codex"], env=env)
    assert done.returncode == 1
    assert "npm not found" in done.stderr or "node not found" in done.stderr
    assert "Node.js 20" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "engines" / "codex" / "node_modules").exists()
