"""``holon engines install|list``: the pinned engine CLIs in the holon-managed directory.

One lock file pins Claude Code, Codex and Gemini CLI together, so ``install claude`` installs
all three (``npm ci`` installs a whole lock file); the name only decides what must be up to
date for the command to skip the install.
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
        help="install the pinned engines with npm ci (all three share one lock file)",
        description=(
            f"Install the pinned engines into {managed_engine_dir()} (set HOLON_ENGINES_DIR "
            "to change it). Needs Node.js 20+ and npm. Installing one engine installs all "
            "three: they share one lock file."
        ),
    )
    install.add_argument(
        "engine", nargs="?", default="all", choices=[*ENGINE_PACKAGES, "all"], help="default: all"
    )
    install.add_argument("--force", action="store_true", help="reinstall even when up to date")
    listing = actions.add_parser("list", help="show installed engines, versions and paths")
    listing.add_argument("--json", action="store_true", help="machine-readable output")


def run(args: argparse.Namespace) -> int:
    if args.engines_command == "install":
        return _install(args.engine, args.force)
    return _list(getattr(args, "json", False))


def _install(engine: str, force: bool) -> int:
    names = list(ENGINE_PACKAGES) if engine == "all" else [engine]
    target = managed_engine_dir()
    changed = install_engines(names, target=target, force=force)
    pins = pinned_versions()
    state = "installed" if changed else "already up to date"
    print(f"engines {state} in {target}:")
    for name in ENGINE_PACKAGES:
        print(f"  {name} {pins.get(name, '?')}")
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
