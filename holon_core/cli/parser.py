"""The argument parser every holon command uses: a usage error exits 1, never 2.

Exit code 2 means "needs human" in RFC-0002, so a script that treats 2 as "a person should
look at this change" must never see it for a mistyped flag. argparse exits 2 on usage errors;
this parser prints the same usage message and exits ``USAGE_EXIT`` instead.
"""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn

#: Exit code of a usage error (bad flag, missing argument) in ``holon`` and ``holon-agent``.
USAGE_EXIT = 1


class Parser(argparse.ArgumentParser):
    """``argparse.ArgumentParser`` whose usage errors exit ``USAGE_EXIT``; subparsers inherit it.

    Its help is plain text: the subcommands' descriptions are their module docstrings, whose
    reStructuredText literals (````holon run````) are shown as `holon run`.
    """

    def format_help(self) -> str:
        return plain(super().format_help())

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(USAGE_EXIT, f"{self.prog}: error: {message}\n")


def plain(text: str) -> str:
    """Docstring markup as plain text: a ````literal```` as `literal`."""
    return text.replace("``", "`")
