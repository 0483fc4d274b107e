"""``holon``: the host-side CLI. Each subcommand lives in its own module with
``add_parser(subparsers)`` and ``run(args) -> int``."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from types import ModuleType

from holon_core._version import __version__
from holon_core.errors import HolonError

SUBCOMMANDS = {
    "run": "holon_core.cli.run_cmd",
    "plugins": "holon_core.cli.plugins_cmd",
    "engines": "holon_core.cli.engines_cmd",
    "schema": "holon_core.cli.schema_cmd",
}


def build_parser() -> tuple[argparse.ArgumentParser, dict[str, ModuleType]]:
    parser = argparse.ArgumentParser(
        prog="holon", description="Run AI coding engines behind the RFC-0002 contract."
    )
    parser.add_argument("--version", action="version", version=f"holon {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    modules: dict[str, ModuleType] = {}
    for name, module_name in SUBCOMMANDS.items():
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                raise
            continue
        module.add_parser(sub)
        modules[name] = module
    return parser, modules


def main(argv: Sequence[str] | None = None) -> int:
    parser, modules = build_parser()
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help()
        return 1
    try:
        code: int = modules[args.command].run(args)
    except HolonError as exc:
        print(f"holon {args.command}: error: {exc}", file=sys.stderr)
        return 1
    return code


if __name__ == "__main__":
    sys.exit(main())
