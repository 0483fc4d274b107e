"""``holon-agent serve`` flags: the one-shot path flags plus ``--socket``, ``--isolate`` and the
queue's limits (``--max-concurrent``, ``--max-queued``)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Sequence
from pathlib import Path

from holon_core.agent.paths import resolve_paths
from holon_core.cli.parser import Parser
from holon_core.sandbox.flags import add_sandbox_options, sandbox_settings


def serve_main(argv: Sequence[str]) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    env = dict(os.environ)
    if args.max_cost is not None:
        from holon_core.gateway.budget import parse_usd

        if parse_usd(args.max_cost) is None:
            parser.error(f"--max-cost {args.max_cost!r} is not a positive amount, e.g. 2.50")
        env["HOLON_MAX_COST_USD"] = args.max_cost
    env |= sandbox_settings(args, env)  # every turn's engine runs in a room of its own
    if args.record is not None:  # the session's cassette, written when the server stops
        env["HOLON_RECORD"] = str(Path(args.record).expanduser().absolute())
    flags = {"input": args.input, "workspace": args.workspace, "output": args.output}
    flags["state"] = args.state
    paths = resolve_paths(flags, env)

    skills = [Path(s).expanduser() for s in args.skill]
    from holon_core.serve.model_choice import ModelMapError, parse_model_map

    try:
        model_map = parse_model_map(args.model_map)
    except ModelMapError as exc:
        parser.error(str(exc))
    if args.once:
        from holon_core.serve.once import run_once

        return run_once(paths, env, engine=args.engine, model=args.model, skills=skills)
    from holon_core.process.tree import become_subreaper, runs_side_by_side
    from holon_core.process.watchdogs import shared_watchdog
    from holon_core.serve.server import serve

    become_subreaper()
    # one watchdog for every turn; turns side by side never take each other's processes
    with shared_watchdog(), runs_side_by_side(args.max_concurrent > 1):
        return serve(
            paths,
            env,
            socket_flag=args.socket,
            engine=args.engine,
            model=args.model,
            skills=skills,
            isolate=args.isolate,
            allow_fetch=args.allow_fetch,
            model_map=model_map,
            max_concurrent=args.max_concurrent,
            max_queued=args.max_queued,
        )


def _parser() -> Parser:
    """The flags: the one-shot path flags, the socket, the queue's limits and the session's."""
    parser = Parser(
        prog="holon-agent serve",
        description="Serve turns of one session over HTTP on a Unix socket (Open Responses).",
        epilog="Exit codes: 0 after POST /shutdown or SIGTERM, 1 when it cannot start.",
    )
    parser.add_argument(
        "--socket", help="Unix socket path (else HOLON_SOCKET, else /holon/ipc/agent.sock)"
    )
    parser.add_argument("--engine", help="engine name (else HOLON_ENGINE, else the only adapter)")
    parser.add_argument(
        "--max-concurrent",
        type=_count(1),
        default=1,
        metavar="N",
        help="turns of different sessions that may run side by side (default 1: one at a "
        "time); turns on the shared workspace still run one at a time",
    )
    parser.add_argument(
        "--max-queued",
        type=_count(0),
        default=8,
        metavar="N",
        help="turns that may wait for their turn (default 8); one more gets 429",
    )
    _add_run_flags(parser)
    _add_session_flags(parser)
    parser.add_argument(
        "--once",
        action="store_true",
        help="one-shot through serve: start a server, run the task in --input as one turn "
        "writing to --output, stop it; exit code as holon-agent",
    )
    add_sandbox_options(parser)
    return parser


def _add_session_flags(parser: Parser) -> None:
    """How the session's turns behave: workspaces, fetching, models, budget, recording."""
    parser.add_argument(
        "--isolate",
        action="store_true",
        help="run each turn in its own copy of the workspace under the state dir "
        '(a request may choose with holon.workspace: "shared" or "isolated")',
    )
    parser.add_argument(
        "--allow-fetch",
        action="store_true",
        help="fetch input_image/input_file http(s) URLs of a request (else refused)",
    )
    parser.add_argument(
        "--model-map",
        action="append",
        default=[],
        metavar="CLIENT=ENGINE",
        help="run a request's model CLIENT as ENGINE (repeat); other unknown names are ignored",
    )
    parser.add_argument(
        "--max-cost",
        metavar="USD",
        help="the session's budget: once its turns' model calls cost this much, the turn "
        "running ends budget_exceeded and so does every later one (HOLON_MAX_COST_USD; "
        "docs/gateway.md)",
    )
    parser.add_argument(
        "--record",
        metavar="DIR",
        help="record the session as one cassette in DIR, a part per turn, written when the "
        "server stops (HOLON_RECORD; docs/cassettes.md)",
    )


def _add_run_flags(parser: Parser) -> None:
    """What every turn runs with: the one-shot path flags, the model and the skills."""
    parser.add_argument("--input", help="input dir; turns read <input>/turns/<turn_id>/")
    parser.add_argument("--workspace", help="workspace dir (HOLON_WORKSPACE_DIR)")
    parser.add_argument("--output", help="output dir; turns write <output>/turns/<turn_id>/")
    parser.add_argument("--state", help="state dir for sessions and responses (HOLON_STATE_DIR)")
    parser.add_argument("--model", help="model name passed to the engine (else HOLON_MODEL)")
    parser.add_argument(
        "--skill", action="append", default=[], metavar="DIR", help="a skill directory (repeat)"
    )


def _count(least: int) -> Callable[[str], int]:
    """An argparse type: a whole number of at least ``least``."""

    def parse(text: str) -> int:
        if not text.isdigit() or int(text) < least:
            raise argparse.ArgumentTypeError(f"give a whole number of at least {least}")
        return int(text)

    return parse
