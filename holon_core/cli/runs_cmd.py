"""``holon runs list|clean``: the run dirs under the runs dir, and removing the ones left over.

A run is *finished* (``holon run`` recorded it in ``run.json``), *running* (its ``holon run``
is alive) or *orphaned* (its ``holon run`` was killed before it could record or clean up).
``clean`` removes finished and orphaned runs, never a running one, and never follows a link.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from holon_core.errors import InputError
from holon_core.runner.layout import default_runs_dir
from holon_core.runner.runs import RunInfo, list_runs, removable, remove_run
from holon_core.spec.durations import parse_duration


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "runs",
        help="list run dirs, remove finished and orphaned ones",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = parser.add_subparsers(dest="runs_command", metavar="ACTION")
    for name, text in (
        ("list", "list the run dirs: id, created, state, size"),
        ("clean", "remove finished and orphaned run dirs (never a running one)"),
    ):
        action = actions.add_parser(name, help=text, description=text)
        action.add_argument(
            "--runs-dir",
            metavar="DIR",
            help="where run dirs live (default: $HOLON_RUNS_DIR, else "
            "$XDG_STATE_HOME/holon/runs, else ~/.local/state/holon/runs)",
        )
        action.add_argument("--json", action="store_true", help="print JSON instead of a table")
        if name == "clean":
            action.add_argument(
                "--older-than",
                metavar="DURATION",
                help="only runs created at least this long ago (90s, 10m, 1h, 48h)",
            )
            action.add_argument(
                "--dry-run", action="store_true", help="show what would be removed; remove nothing"
            )


def run(args: argparse.Namespace) -> int:
    if args.runs_command is None:
        raise InputError("say what to do: holon runs list | holon runs clean")
    runs_dir = Path(args.runs_dir).expanduser().absolute() if args.runs_dir else None
    runs = list_runs(runs_dir or default_runs_dir())
    if args.runs_command == "list":
        _print(runs, args.json, verb=None)
        return 0
    older_than = None
    if args.older_than is not None:
        try:
            older_than = parse_duration(args.older_than)
        except ValueError as exc:
            raise InputError(f"--older-than: {exc}") from exc
    chosen = [r for r in runs if removable(r, older_than)]
    failed: list[str] = []
    removed: list[RunInfo] = []
    for info in chosen:
        if args.dry_run:
            removed.append(info)
            continue
        try:
            remove_run(info)
            removed.append(info)
        except OSError as exc:
            failed.append(f"{info.path}: {exc}")
    _print(removed, args.json, verb="would remove" if args.dry_run else "removed")
    for problem in failed:
        sys.stderr.write(f"holon runs clean: error: cannot remove {problem}\n")
    return 1 if failed else 0


def _print(runs: list[RunInfo], as_json: bool, *, verb: str | None) -> None:
    if as_json:
        print(json.dumps([r.as_dict() for r in runs], indent=2))
        return
    if verb is not None:
        for r in runs:
            print(f"{verb} {r.id} ({r.state}, {_size(r.size_bytes)})")
        if not runs:
            print("nothing to remove")
        return
    print(f"{'ID':<32} {'CREATED':<25} {'STATE':<9} {'SIZE':>9}")
    for r in runs:
        created = r.as_dict()["created"]
        print(f"{r.id:<32} {created!s:<25} {r.state:<9} {_size(r.size_bytes):>9}")


def _size(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1000 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    return f"{value:.1f} GB"
