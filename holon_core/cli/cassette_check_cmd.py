"""``holon cassette check DIR [--workspace W]``: replay a cassette and compare it with the
recording (:mod:`holon_core.cassette.check`); exit 0 when outcome, reason, ``diff.patch`` and
tool calls agree, 1 with a short report when they do not (docs/cassettes.md, "Check")."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING

from holon_core.errors import InputError

if TYPE_CHECKING:
    from holon_core.cassette.format import CassetteInfo

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
    from holon_core.cassette.format import read_info

    workspace = args.workspace.expanduser().absolute()
    if not workspace.is_dir():
        raise InputError(
            f"--workspace {workspace} is not a directory",
            hint="give the workspace at the recorded baseline",
        )
    info = read_info(root)
    output = args.output.expanduser().absolute() if args.output is not None else None

    def replay(spec: Path, settings: dict[str, str]) -> Path:
        """One ``holon run`` of the recorded engine and model, answered by the cassette."""
        from holon_core.runner.report import RunAborted
        from holon_core.runner.run import RunOptions, run_task

        options = RunOptions(
            spec=spec,
            workspace=workspace,
            output=output if output is not None else spec.parent / "output",
            runs_dir=spec.parent / "runs",
            engine=info.engine.name,
            model=_model(info),
            progress=False,
            report=False,
        )
        try:
            return run_task(options, env={**os.environ, **settings}).output_dir
        except RunAborted as exc:  # refused before the replay started (its message says why)
            raise InputError(exc.message) from None

    result = check_cassette(root, replay, mode=args.cassette_mode)
    print(result.report())
    return 0 if result.ok else 1


def _model(info: CassetteInfo) -> str | None:
    """The model the recording asked for (None: the engine's default, as recorded); a
    cassette written before ``requested_model`` existed is replayed with the one reported."""
    if "requested_model" in info.model_fields_set:
        return info.requested_model
    return info.model
