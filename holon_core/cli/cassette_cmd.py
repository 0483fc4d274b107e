"""``holon cassette list|show|check DIR``: the cassettes recorded with ``--record``
(docs/cassettes.md).

``list`` finds every cassette at or under DIR: engine, model, how the run ended, its model
calls and size. ``show`` prints one cassette: what ran, and each model call (kind, request,
status, the answer's events or bytes, timing). ``check`` replays one through ``holon run``
(``cassette_check_cmd.py``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from holon_core.cli.cassette_check_cmd import HELP as CHECK_HELP
from holon_core.cli.cassette_check_cmd import add_check_arguments, run_check
from holon_core.errors import InputError

ACTIONS = {
    "list": "list the cassettes at or under DIR: engine, model, outcome, calls, size",
    "show": "show one cassette: what ran and each model call",
    "check": CHECK_HELP,
}


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "cassette",
        help="list, show and check recorded cassettes (holon run --record DIR)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = parser.add_subparsers(dest="cassette_command", metavar="ACTION")
    for name, text in ACTIONS.items():
        action = actions.add_parser(name, help=text, description=text)
        action.add_argument("dir", metavar="DIR")
        if name == "check":
            add_check_arguments(action)
            continue
        action.add_argument("--json", action="store_true", help="print JSON instead of a table")


def run(args: argparse.Namespace) -> int:
    if args.cassette_command is None:
        raise InputError(
            "say what to do: holon cassette list DIR | show DIR | check DIR [--workspace W]"
        )
    root = Path(args.dir).expanduser().absolute()
    if not root.is_dir():
        raise InputError(f"{root} is not a directory", hint="give the directory --record wrote")
    if args.cassette_command == "check":
        return run_check(root, args)
    if args.cassette_command == "list":
        return _list(root, as_json=args.json)
    return _show(root, as_json=args.json)


def _list(root: Path, *, as_json: bool) -> int:
    from holon_core.cassette.summary import find_cassettes, human_size

    rows = [found.row(root) for found in find_cassettes(root)]
    if as_json:
        print(json.dumps(rows, indent=2))
    elif not rows:
        print(f"no cassettes under {root}")
    else:
        table = [["PATH", "ENGINE", "MODEL", "OUTCOME", "CALLS", "SIZE"]]
        for row in rows:
            if "error" in row:
                table.append([row["path"], "?", "?", "unreadable", "-", "-"])
                continue
            engine = row["engine"] + (f" {row['engine_version']}" if row["engine_version"] else "")
            outcome = row["outcome"] + (f" ({row['reason']})" if row["reason"] != "ok" else "")
            size = human_size(row["bytes"])
            table.append(
                [row["path"], engine, row["model"] or "-", outcome, str(row["calls"]), size]
            )
        _print_table(table)
    errors = [row for row in rows if "error" in row]
    for row in errors:
        sys.stderr.write(f"holon cassette list: {row['path']}: {row['error']}\n")
    return 1 if errors else 0


def _show(root: Path, *, as_json: bool) -> int:
    from holon_core.cassette.format import read_cassette
    from holon_core.cassette.summary import call_row, human_size

    cassette = read_cassette(root)
    info = cassette.info
    rows = [call_row(call) for call in cassette.calls]
    if as_json:
        data: dict[str, Any] = {"info": info.model_dump(mode="json", by_alias=True)}
        print(json.dumps(data | {"calls": rows}, indent=2))
        return 0
    engine = info.engine.name + (f" {info.engine.version}" if info.engine.version else "")
    print(f"cassette   {root}")
    print(f"engine     {engine}, model {info.model or '-'}, API {info.api or '-'}")
    print(f"recorded   {info.created} with holon {info.holon_version}")
    print(f"outcome    {info.outcome} ({info.reason})" + (f": {info.error}" if info.error else ""))
    failed = sum(1 for tool in info.tool_calls if not tool.ok)
    print(f"tools      {len(info.tool_calls)} calls, {failed} failed")
    print(f"size       {human_size(cassette.size_bytes())}, {len(rows)} model calls")
    for index, part in enumerate(info.parts, 1):  # a serve session: its turns, in order
        after = f" after {part['previous_response_id']}" if part.get("previous_response_id") else ""
        ended = f"{part.get('outcome')} ({part.get('reason')})"
        print(f"turn {index:<5} {part.get('id')}{after}: {ended}, {part.get('calls')} calls")
    print()
    table = [["#", "KIND", "REQUEST", "STATUS", "ANSWER", "AT MS", "TOOK MS"]]
    for row in rows:
        status = str(row["status"] if row["status"] is not None else "-")
        if row["error"]:
            status += f" {row['error']}"
        took = "-" if row["total_ms"] is None else f"{row['total_ms']:.0f}"
        request = row["request"] if len(row["request"]) <= 60 else row["request"][:57] + "..."
        seq = str(row["seq"]) + (f" [{row['part']}]" if row["part"] else "")
        started = f"{row['started_ms']:.0f}"
        table.append([seq, row["kind"], request, status, row["answer"], started, took])
    _print_table(table)
    return 0


def _print_table(table: list[list[str]]) -> None:
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    for row in table:
        print(
            "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        )
