"""``holon``: the host-side CLI. Each subcommand lives in its own module with
``add_parser(subparsers)`` and ``run(args) -> int``."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from types import ModuleType

from holon_core._version import __version__
from holon_core.cli.parser import Parser
from holon_core.errors import HolonError

SUBCOMMANDS = {
    "run": "holon_core.cli.run_cmd",
    "plugins": "holon_core.cli.plugins_cmd",
    "engines": "holon_core.cli.engines_cmd",
    "schema": "holon_core.cli.schema_cmd",
    "runs": "holon_core.cli.runs_cmd",  # skipped while the module does not exist
    "skills": "holon_core.cli.skills_cmd",
    "batch": "holon_core.cli.batch_cmd",
    "solve": "holon_core.cli.solve_cmd",
    "chat": "holon_core.cli.chat_cmd",
    "report": "holon_core.cli.report_cmd",
    "cassette": "holon_core.cli.cassette_cmd",
    "action": "holon_core.cli.action_cmd",
}


def build_parser() -> tuple[argparse.ArgumentParser, dict[str, ModuleType]]:
    """The ``holon`` parser with every subcommand whose module imports."""
    parser = Parser(
        prog="holon",
        description="Run AI coding engines behind the RFC-0002 contract.",
        epilog="Exit codes: 0 success, 1 failure or usage error, 2 needs human (holon run).",
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
    """Run one subcommand; a reader that closed our stdout or stderr early is not an error.

    ``holon engines list --json | head -1`` closes the pipe after one line: the rest of the
    output is dropped (the streams are pointed at /dev/null) and holon exits 0, as the reader
    chose to stop: no traceback, no "Exception ignored" noise from the final flush.
    """
    try:
        code = _main(argv)
        sys.stdout.flush()
    except BrokenPipeError:
        from holon_core.runner.streams import silence

        silence(sys.stdout)
        silence(sys.stderr)
        return 0
    return code


def _main(argv: Sequence[str] | None) -> int:
    parser, modules = build_parser()
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help(sys.stderr)
        return 1
    try:
        code: int = modules[args.command].run(args)
    except HolonError as exc:
        from holon_core.runner.streams import write_safely

        sys.stdout.flush()
        write_safely(sys.stderr, f"holon {args.command}: error: {exc}\n")
        return 1
    return code


if __name__ == "__main__":
    sys.exit(main())
