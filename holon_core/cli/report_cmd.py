"""``holon report PATH [--out FILE]``: one self-contained HTML page of a run or a batch.

PATH is a ``holon run`` run dir, an output dir (``manifest.json`` and ``evidence/``) or a
``holon batch`` results dir. The page goes beside the record (``report.html``) unless
``--out`` says where; for a batch, each cell's page is written beside that cell's record
too. See docs/report.md.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "report",
        help="write a self-contained HTML report of a run or a batch",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "path", type=Path, metavar="PATH", help="a run dir, an output dir or a batch results dir"
    )
    parser.add_argument(
        "--out",
        type=Path,
        metavar="FILE",
        help="where to write the page (default: report.html beside the record)",
    )


def run(args: argparse.Namespace) -> int:
    from holon_core.report import write_report
    from holon_core.runner.streams import write_safely

    written = write_report(args.path, args.out)
    write_safely(sys.stdout, f"{written}\n")
    return 0
