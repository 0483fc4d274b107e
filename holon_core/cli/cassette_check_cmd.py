"""``holon cassette check DIR [--workspace W]``: replay a cassette and compare it with the
recording (:mod:`holon_core.cassette.check`); exit 0 when outcome, reason, ``diff.patch`` and
tool calls agree, 1 with a short report when they do not (docs/cassettes.md, "Check")."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from holon_core.errors import InputError

HELP = "replay a cassette and compare outcome, reason, diff.patch and tool calls (exit 0/1)"


def add_check_arguments(action: argparse.ArgumentParser) -> None:
    action.add_argument(
        "--workspace",
        type=Path,
        default=Path(),
        help="the workspace at the recorded baseline (default: the current directory; "
        "never modified: the replay runs on a snapshot)",
    )
    action.add_argument("--output", type=Path, help="where the replay's record goes")
    action.add_argument(
        "--cassette-mode",
        choices=("strict", "lenient"),
        default="strict",
        help="strict (default): any request not recorded fails the check",
    )


def run_check(root: Path, args: argparse.Namespace) -> int:
    from holon_core.cassette.check import check_cassette

    workspace = args.workspace.expanduser().absolute()
    if not workspace.is_dir():
        raise InputError(
            f"--workspace {workspace} is not a directory",
            hint="give the workspace at the recorded baseline",
        )
    output = args.output.expanduser().absolute() if args.output is not None else None
    result = check_cassette(
        root, workspace, dict(os.environ), output=output, mode=args.cassette_mode
    )
    print(result.report())
    return 0 if result.ok else 1
