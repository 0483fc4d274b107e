"""``holon batch JOB.yaml``: many ``holon run``s from one job file (see docs/batch.md)."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

from holon_core.cli.run_cmd import max_cost_option, report_option
from holon_core.process.signal_latch import SignalLatch
from holon_core.runner.streams import write_safely
from holon_core.sandbox.flags import add_sandbox_options, sandbox_settings


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "batch",
        help="run a job: tasks x engines x models x attempts, locally or on Ray",
        description=(
            "Run every cell of a job file (one holon run each) on a bounded local pool or on "
            "a Ray cluster; retry infrastructure failures; write results.jsonl and report.md "
            "in the job's results dir. Exit code: 0 every cell succeeded, 2 the worst outcome "
            "is needs_human, 1 a failure, a cancel, or a usage error."
        ),
    )
    parser.add_argument("job", type=Path, help="the job file (YAML; see docs/batch.md)")
    parser.add_argument("--executor", choices=("local", "ray"), default="local")
    parser.add_argument("--address", help="Ray cluster address (default: start Ray locally)")
    parser.add_argument("--concurrency", type=_positive, help="runs at once (limits.concurrency)")
    parser.add_argument(
        "--resume", action="store_true", help="keep cells that already have a valid manifest"
    )
    parser.add_argument("--results", type=Path, help="results dir (default: <job>.results/)")
    parser.add_argument("--json", action="store_true", help="print results.jsonl, not a table")
    parser.add_argument(
        "--max-cost",
        metavar="USD",
        help="each cell's budget: a run whose model calls cost this much ends budget_exceeded "
        "(HOLON_MAX_COST_USD; limits.max_cost_usd caps the whole job; docs/gateway.md)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    add_sandbox_options(parser)
    report_option(parser)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive whole number")
    return value


def run(args: argparse.Namespace) -> int:
    from holon_core.batch.report import terminal_table
    from holon_core.batch.run import BatchOptions, run_batch

    options = BatchOptions(
        job=args.job,
        executor=args.executor,
        address=args.address,
        concurrency=args.concurrency,
        resume=args.resume,
        results=args.results,
        progress=not args.quiet,
        report=args.report,
    )
    env = dict(os.environ)
    cell_cost = max_cost_option(args.max_cost)
    if cell_cost is not None:  # every cell's holon run passes it to its agent
        env["HOLON_MAX_COST_USD"] = f"{cell_cost:g}"
    env |= sandbox_settings(args, env)  # every cell's holon run hands them to its agent
    with _cancel_on_signals() as cancel:
        outcome = run_batch(options, env, sys.stderr, cancel, tty=_isatty())
    if args.json:
        import json

        text = "".join(json.dumps(r.to_dict()) + "\n" for r in outcome.results)
    else:
        text = terminal_table(outcome.results)
        text += f"results: {outcome.job.results}\n"
        text += f"report: {outcome.report}\n" if outcome.report else ""
    write_safely(sys.stdout, text)
    if args.json and outcome.report:
        write_safely(sys.stderr, f"holon batch: report: {outcome.report}\n")
    if outcome.cancelled:
        missing = outcome.total - len(outcome.results)
        write_safely(
            sys.stderr,
            f"holon batch: cancelled; {missing} cells have no result "
            f"(rerun with --resume to finish them)\n",
        )
    return outcome.exit_code


@contextmanager
def _cancel_on_signals() -> Iterator[threading.Event]:
    """SIGINT/SIGTERM/SIGHUP stop the job: running cells record a cancelled run, no new
    cell starts."""
    cancel = threading.Event()
    latch = SignalLatch(cancel)  # a second signal takes no lock (process/signal_latch.py)

    def handler(_signum: int, _frame: FrameType | None) -> None:
        latch.fire()

    stops = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    previous = {sig: signal.signal(sig, handler) for sig in stops}
    try:
        yield cancel
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def _isatty() -> bool:
    try:
        return sys.stderr.isatty()
    except (OSError, ValueError):
        return False
