"""``holon engines install|list``: the pinned engine CLIs in the holon-managed directory.

Which engines exist, and at which pin, is what the installed adapters declare
(``EngineAdapter.engine_package``): each adapter ships its own ``package.json`` and
``package-lock.json``, and each engine is installed into its own npm prefix with ``npm ci``.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from typing import TYPE_CHECKING

from holon_core.engine.binaries import engine_status, install_engines, managed_engine_dir
from holon_core.errors import EngineNotFound

if TYPE_CHECKING:
    from holon_core.engine.binaries import EnginePackage
    from holon_core.hooks.manager import HolonPlugins


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "engines",
        help="install and list the pinned engine CLIs",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = parser.add_subparsers(dest="engines_command", metavar="ACTION")
    install = actions.add_parser(
        "install",
        help="install a pinned engine (or all) with npm ci",
        description=(
            f"Install the pinned engines into {managed_engine_dir()} (set HOLON_ENGINES_DIR "
            "to change it), each in its own npm prefix. Needs Node.js 20+ and npm."
        ),
    )
    install.add_argument(
        "engine",
        nargs="?",
        default="all",
        help="an installed adapter's engine (an ACP profile installs the CLI it runs too), "
        "or all (default)",
    )
    install.add_argument("--force", action="store_true", help="reinstall even when up to date")
    install.add_argument(
        "--offline", action="store_true", help="install from the npm cache only (npm --offline)"
    )
    listing = actions.add_parser("list", help="show installed engines, versions and paths")
    listing.add_argument("--json", action="store_true", help="machine-readable output")


def engine_packages(plugins: HolonPlugins) -> dict[str, EnginePackage]:
    """Engine name -> its npm package, for every installed adapter that declares one."""
    found = {}
    for name in plugins.engine_names():
        package = plugins.get_engine(name).engine_package
        if package is not None:
            found[name] = package
    return found


def run(args: argparse.Namespace) -> int:
    if args.engines_command == "install":
        return _install(args.engine, args.force, args.offline)
    return _list(getattr(args, "json", False))


def _install(engine: str, force: bool, offline: bool) -> int:
    from holon_core.hooks.manager import load_plugins

    plugins = load_plugins()
    packages = engine_packages(plugins)
    chosen = packages if engine == "all" else _packages_of(engine, packages, plugins)
    if not chosen:
        print(
            f"{engine}: nothing to install (its adapter ships no engine package: it runs a "
            "command you install yourself)"
        )
        return 0
    target = managed_engine_dir()
    installed = install_engines(chosen, target=target, force=force, offline=offline)
    for name, package in chosen.items():
        state = "installed" if name in installed else "already up to date"
        print(f"{name} {package.version}: {state} in {target}")
    return 0


def _packages_of(
    engine: str, packages: dict[str, EnginePackage], plugins: HolonPlugins
) -> dict[str, EnginePackage]:
    """What ``holon engines install ENGINE`` installs: the engine's own package and those of
    the engines whose CLI it runs (an ACP profile: ``acp-gemini`` runs gemini)."""
    names = plugins.engine_names()
    if engine not in names:
        known = ", ".join(sorted(packages)) or "none"
        raise EngineNotFound(
            f'no installed adapter ships an engine named "{engine}" (known: {known})',
            hint=f"pip install holon-adapter-{engine}, or pick one of: {known}, all",
        )
    runs = plugins.get_engine(engine).installs_with()
    for other in runs:
        if other not in names:
            raise EngineNotFound(
                f'engine "{engine}" runs the {other} CLI, and no installed adapter provides '
                f'engine "{other}"',
                hint=f"pip install holon-adapter-{other}",
            )
    return {name: packages[name] for name in (engine, *runs) if name in packages}


def _list(as_json: bool) -> int:
    from holon_core.hooks.manager import load_plugins

    packages = engine_packages(load_plugins())
    engines = [engine_status(name, package) for name, package in packages.items()]
    if as_json:
        payload = [{**asdict(e), "matches_pin": e.matches_pin} for e in engines]
        print(json.dumps(payload, indent=2))
        return 0
    if not engines:
        print("no installed adapter declares an engine package (pip install holon-adapter-NAME)")
        return 0
    width = max(len(e.name) for e in engines)
    for e in engines:
        if e.source == "missing":
            print(
                f"{e.name:<{width}}  missing  (pinned {e.pinned}; "
                f"run `holon engines install {e.name}`)"
            )
            continue
        note = "" if e.matches_pin else f"  (pinned {e.pinned})"
        print(f"{e.name:<{width}}  {e.installed or '?'}  {e.path}  [{e.source}]{note}")
    return 0
