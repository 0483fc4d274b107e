"""``holon engines install|list``: the pinned engine CLIs in the holon-managed directory.

One lock file pins Claude Code, Codex and Gemini CLI together; each engine is installed into
its own npm prefix from its part of that lock, so ``install claude`` installs Claude Code only.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict

from holon_core.engines import (
    ENGINE_PACKAGES,
    install_engines,
    list_engines,
    managed_engine_dir,
    pinned_versions,
)


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
        "engine", nargs="?", default="all", choices=[*ENGINE_PACKAGES, "all"], help="default: all"
    )
    install.add_argument("--force", action="store_true", help="reinstall even when up to date")
    install.add_argument(
        "--offline", action="store_true", help="install from the npm cache only (npm --offline)"
    )
    listing = actions.add_parser("list", help="show installed engines, versions and paths")
    listing.add_argument("--json", action="store_true", help="machine-readable output")


def run(args: argparse.Namespace) -> int:
    if args.engines_command == "install":
        return _install(args.engine, args.force, args.offline)
    return _list(getattr(args, "json", False))


def _install(engine: str, force: bool, offline: bool) -> int:
    names = list(ENGINE_PACKAGES) if engine == "all" else [engine]
    target = managed_engine_dir()
    installed = install_engines(names, target=target, force=force, offline=offline)
    pins = pinned_versions()
    for name in names:
        state = "installed" if name in installed else "already up to date"
        print(f"{name} {pins.get(name, '?')}: {state} in {target}")
    return 0


def _list(as_json: bool) -> int:
    engines = list_engines()
    if as_json:
        payload = [{**asdict(e), "matches_pin": e.matches_pin} for e in engines]
        print(json.dumps(payload, indent=2))
        return 0
    width = max(len(e.name) for e in engines)
    for e in engines:
        if e.source == "missing":
            print(f"{e.name:<{width}}  missing  (pinned {e.pinned}; run `holon engines install`)")
            continue
        note = "" if e.matches_pin else f"  (pinned {e.pinned})"
        print(f"{e.name:<{width}}  {e.installed or '?'}  {e.path}  [{e.source}]{note}")
    return 0
