"""``holon-agent``: the container entrypoint. ``--probe`` checks readiness; otherwise one run.

Exit codes follow the outcome: 0 success, 1 failure, 2 needs human; a usage error exits 1.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from holon_core._version import __version__
from holon_core.agent.init import run_as_init, unblock_stop_signals
from holon_core.agent.interrupt import cancel_handler
from holon_core.agent.paths import resolve_paths
from holon_core.cli.parser import Parser
from holon_core.sandbox.flags import add_sandbox_options, sandbox_settings

CANCEL_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="holon-agent",
        description="Run one holon task (RFC-0002) with an engine, headlessly. "
        "`holon-agent serve --help`: serve mode (many turns over a Unix socket).",
        epilog="Exit codes: 0 success, 1 failure or usage error, 2 needs human.",
    )
    parser.add_argument("--version", action="version", version=f"holon-agent {__version__}")
    parser.add_argument("--engine", help="engine name (else HOLON_ENGINE, else the only adapter)")
    parser.add_argument("--input", help="input dir with spec.yaml (HOLON_INPUT_DIR, /holon/input)")
    parser.add_argument("--workspace", help="workspace dir (HOLON_WORKSPACE_DIR, /holon/workspace)")
    parser.add_argument("--output", help="output dir (HOLON_OUTPUT_DIR, /holon/output)")
    parser.add_argument("--state", help="state dir for run-local homes (HOLON_STATE_DIR)")
    parser.add_argument("--model", help="model name passed to the engine (else HOLON_MODEL)")
    parser.add_argument(
        "--skill", action="append", default=[], metavar="DIR", help="a skill directory (repeat)"
    )
    parser.add_argument(
        "--max-cost",
        metavar="USD",
        help="stop the run once its model calls cost this much (else HOLON_MAX_COST_USD)",
    )
    parser.add_argument(
        "--record",
        metavar="DIR",
        help="record the run's model calls as a cassette in DIR (else HOLON_RECORD; "
        "docs/cassettes.md)",
    )
    parser.add_argument(
        "--cassette",
        metavar="DIR",
        help="replay the cassette in DIR instead of calling the model API (else "
        "HOLON_CASSETTE; docs/cassettes.md)",
    )
    parser.add_argument(
        "--cassette-mode",
        choices=("strict", "lenient"),
        help="a request not recorded fails the run (strict, default) or gets the nearest "
        "recorded answer with a warning (lenient; else HOLON_CASSETTE_MODE)",
    )
    add_sandbox_options(parser)
    parser.add_argument("--probe", action="store_true", help="check readiness, run nothing")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["serve"]:  # serve mode; its web stack is never imported by one-shot runs
        from holon_core.serve.cli import serve_main

        return serve_main(argv[1:])
    args = build_parser().parse_args(argv)
    env = dict(os.environ)
    if args.max_cost is not None:  # checked with the budget, like the variable it sets
        env["HOLON_MAX_COST_USD"] = args.max_cost
    if args.record is not None:
        env["HOLON_RECORD"] = args.record
    if args.cassette is not None:
        env["HOLON_CASSETTE"] = args.cassette
    if args.cassette_mode is not None:
        env["HOLON_CASSETTE_MODE"] = args.cassette_mode
    env |= sandbox_settings(args, env)
    flags = {"input": args.input, "workspace": args.workspace, "output": args.output}
    flags["state"] = args.state
    paths = resolve_paths(flags, env)
    if args.probe:
        from holon_core.agent.probe import probe

        unblock_stop_signals()  # blocked when forked by the PID 1 init: default action again
        skills = [Path(s).expanduser() for s in args.skill]
        return probe(paths, args.engine, env, skills, model=args.model)

    # Handlers first, before the heavy imports: a signal at any moment becomes a cancelled
    # run with a manifest, never a silent death; before the launch it interrupts whatever
    # blocks (agent/interrupt.py). SIGHUP (a closed terminal or SSH session) counts as a
    # cancel too.
    cancel = threading.Event()
    on_signal = cancel_handler(cancel)
    for sig in CANCEL_SIGNALS:
        signal.signal(sig, on_signal)
    unblock_stop_signals()  # one held since the PID 1 init forked is delivered now

    from holon_core.agent.run import AgentOptions, run_agent
    from holon_core.process.tree import become_subreaper

    become_subreaper()
    options = AgentOptions(
        engine=args.engine, model=args.model, skills=[Path(s).expanduser() for s in args.skill]
    )
    return run_agent(paths, options, env, cancel)


def entrypoint() -> NoReturn:
    """The ``holon-agent`` command: :func:`main`, then exit without interpreter teardown.

    By then the manifest is written and closed, evidence is flushed and every process is
    reaped; tearing down ~300 imported modules would only add about 30 ms to every run
    (measured on replay runs: 192 ms vs 162 ms median), which counts against holon's
    overhead budget. ``main()`` itself still returns normally for in-process callers.
    """
    code = run_as_init(main)  # as a container's PID 1: a reaping init forwards to the agent
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    entrypoint()
