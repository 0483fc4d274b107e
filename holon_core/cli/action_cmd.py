"""``holon action``: the GitHub Action's steps (action.yml; docs/github-action.md).

``holon action run`` runs the task the action's inputs describe (``INPUT_ENGINE``,
``INPUT_SPEC`` / ``INPUT_GOAL`` / ``INPUT_SOLVE``, ``INPUT_MODEL``, ``INPUT_MAX_COST``,
``INPUT_PUBLISH``, ``INPUT_WORKSPACE``) with ``holon run`` or ``holon solve``, then writes the
step's outputs (``$GITHUB_OUTPUT``) and the job summary (``$GITHUB_STEP_SUMMARY``).
``holon action summary OUTPUT_DIR`` writes them for a run made some other way. Exit code:
the run's (0 success, 1 failure, 2 needs human).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "action",
        help="the GitHub Action's steps: run a task, write step outputs and the job summary",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    steps = parser.add_subparsers(dest="step", metavar="STEP", required=True)
    steps.add_parser("run", help="run the task the INPUT_* variables describe")
    summary = steps.add_parser("summary", help="outputs and job summary of a finished run")
    summary.add_argument("output", type=Path, metavar="OUTPUT_DIR", help="the run's output dir")
    summary.add_argument(
        "--exit-code", type=int, default=None, help="holon's exit code (else from the outcome)"
    )


def run(args: argparse.Namespace) -> int:
    from holon_core.action.entry import run_action, summarize

    if args.step == "run":
        return run_action(os.environ)
    return summarize(args.output, args.exit_code, os.environ)
