"""Every ``--help`` of ``holon`` and ``holon-agent`` is plain text: the descriptions are module
docstrings, and their reStructuredText literals must not show as doubled backticks."""

from __future__ import annotations

import argparse
from collections.abc import Iterator

from holon_core.cli.main import build_parser

from .kit import run, script


def _parsers(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                yield from _parsers(child)


def test_no_help_of_holon_shows_docstring_markup() -> None:
    parser, _modules = build_parser()
    helps = {p.prog: p.format_help() for p in _parsers(parser)}
    assert len(helps) > 20  # every subcommand and action
    marked = sorted(prog for prog, text in helps.items() if "``" in text)
    assert marked == []
    assert "`holon report PATH [--out FILE]`" in helps["holon report"]


def test_the_help_a_user_prints_is_plain() -> None:
    for argv in (["holon", "engines", "--help"], ["holon-agent", "--help"]):
        done = run([script(argv[0]), *argv[1:]])
        assert done.returncode == 0, done.stderr
        assert "``" not in done.stdout and "usage:" in done.stdout
