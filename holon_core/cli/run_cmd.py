"""``holon run SPEC | --goal TEXT``: run one task against a snapshot of the workspace.

See README, holon run. ``--goal`` alone writes the spec (``runner/task_spec.py``); beside a
SPEC it replaces that spec's goal.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from holon_core.cli.cassette_option import add_cassette_options, cassette_settings
from holon_core.cli.record_option import add_record_option, record_option
from holon_core.errors import HolonError, InputError
from holon_core.runner.agent_env import AGENT_CMD_ENV, AGENT_PATHS, AGENT_PATHS_ENV
from holon_core.sandbox.flags import add_sandbox_options, sandbox_settings
from holon_core.spec.durations import parse_duration

if TYPE_CHECKING:
    from holon_core.runner.container import ContainerOptions
    from holon_core.runner.report import RunAborted
    from holon_core.runner.signals import StopSignals


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "run",
        help="run a task with holon-agent against a snapshot of the workspace",
        description=(
            "Build the input dir, snapshot the workspace, run holon-agent in a run-local "
            "directory with its own HOME, validate the manifest, the required artifacts and "
            "diff.patch, and report. Exit code: the agent's (0 success, 1 failure, 2 needs "
            "human), or 1 when the result fails validation or the command line is wrong."
        ),
    )
    parser.add_argument(
        "spec", type=Path, nargs="?", metavar="SPEC", help="the task spec.yaml (or --goal)"
    )
    parser.add_argument(
        "--goal",
        metavar="TEXT",
        help="the task in words: without SPEC a spec is written from it (kept as "
        "input/spec.yaml in the run dir); with SPEC it replaces the spec's goal",
    )
    parser.add_argument("--goal-file", type=Path, metavar="FILE", help="--goal, read from FILE")
    parser.set_defaults(usage_error=parser.error)
    parser.add_argument("--workspace", type=Path, default=Path(), help="workspace (default .)")
    parser.add_argument(
        "--output", type=Path, help="output dir (default: output/ inside the run dir)"
    )
    parser.add_argument(
        "--runs-dir",
        type=Path,
        help="where run dirs go (HOLON_RUNS_DIR, else $XDG_STATE_HOME/holon/runs)",
    )
    parser.add_argument("--engine", help="engine name (else HOLON_ENGINE, spec, only installed)")
    parser.add_argument("--model", help="model passed to the engine")
    _add_input_options(parser)
    parser.add_argument(
        "--apply",
        action="store_true",
        help="apply diff.patch to the workspace when the run succeeded and every check passed",
    )
    parser.add_argument(
        "--keep-snapshot", action="store_true", help="keep the snapshot and run-local homes"
    )
    parser.add_argument("--timeout", metavar="DURATION", help="wall clock limit, e.g. 90s, 10m")
    parser.add_argument(
        "--max-cost",
        metavar="USD",
        help="stop the run once its model calls cost this much, e.g. 2.50 (budget_exceeded; "
        "HOLON_MAX_COST_USD; docs/gateway.md)",
    )
    add_record_option(parser)
    add_cassette_options(parser)
    _add_agent_options(parser)
    parser.add_argument(
        "--serve",
        action="store_true",
        help="run the task as one turn of holon-agent serve (started, given one turn, stopped)",
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    report_option(parser)


def _add_input_options(parser: argparse.ArgumentParser) -> None:
    """What goes into the run's input dir besides the spec: context, prompts, skills."""
    parser.add_argument(
        "--context", type=Path, help="context dir (default: context/ next to the spec)"
    )
    parser.add_argument("--system-prompt", type=Path, metavar="FILE", help="prompts/system.md")
    parser.add_argument("--user-prompt", type=Path, metavar="FILE", help="prompts/user.md")
    parser.add_argument(
        "--skill", type=Path, action="append", default=[], metavar="DIR", help="skill (repeat)"
    )


def _add_agent_options(parser: argparse.ArgumentParser) -> None:
    """Which agent runs the task and where: another RFC-0002 agent, its room, a container and
    its limits."""
    add_sandbox_options(parser)
    parser.add_argument(
        "--agent",
        metavar="COMMAND",
        help="the RFC-0002 agent to run, as shell words (HOLON_AGENT_CMD; default holon-agent)",
    )
    parser.add_argument(
        "--agent-paths",
        choices=AGENT_PATHS,
        help="how the agent takes its paths: flags (default) or env, for a v0.1 agent that "
        "reads HOLON_INPUT_DIR etc. and takes no flags (HOLON_AGENT_PATHS)",
    )
    parser.add_argument(
        "--container",
        nargs="?",
        const="",
        metavar="IMAGE",
        help="run holon-agent in a container (podman or docker: HOLON_CONTAINER_RUNTIME) from "
        "IMAGE (HOLON_CONTAINER_IMAGE, else holon-agent:latest); put it after the spec",
    )
    parser.add_argument(
        "--network",
        help="container network: none, host, bridge or a runtime network (default: none for "
        "replay, host for an endpoint on this host's loopback, else bridge)",
    )
    parser.add_argument("--memory", help="container memory limit, e.g. 2g")
    parser.add_argument("--cpus", help="container CPU limit, e.g. 1.5")


def report_option(parser: argparse.ArgumentParser) -> None:
    """``--no-report`` (holon run, solve and batch write report.html by default)."""
    parser.add_argument(
        "--no-report",
        dest="report",
        action="store_false",
        help="do not write report.html beside the record (docs/report.md)",
    )


def timeout_option(text: str | None) -> float | None:
    """``--timeout`` in seconds (``holon run`` and the commands built on it)."""
    if text is None:
        return None
    try:
        return parse_duration(text)
    except ValueError as exc:
        raise InputError(f"--timeout: {exc}") from exc


def max_cost_option(text: str | None) -> float | None:
    """``--max-cost USD``: a positive number of US dollars."""
    if text is None:
        return None
    from holon_core.gateway.budget import parse_usd

    value = parse_usd(text)
    if value is None:
        raise InputError(
            f"--max-cost: {text!r} is not a positive number of US dollars",
            hint="give it like --max-cost 2.50",
        )
    return value


def goal_option(text: str | None, file: Path | None) -> str | None:
    """``--goal TEXT`` or ``--goal-file FILE`` (not both)."""
    if file is None:
        return text
    if text is not None:
        raise InputError("--goal and --goal-file exclude each other", hint="drop one of them")
    from holon_core.runner.task_spec import read_goal_file

    return read_goal_file(file)


def run(args: argparse.Namespace) -> int:
    """Signals are handled from the first line on, and every ending prints one result."""
    from holon_core.runner.signals import StopSignals

    if args.spec is None and args.goal is None and args.goal_file is None:
        args.usage_error(
            "the following arguments are required: SPEC or --goal TEXT (holon run spec.yaml, "
            "or holon run --goal 'Fix the failing test' --workspace DIR)"
        )
    with StopSignals().installed() as stops:
        return _run(args, stops)


def _run(args: argparse.Namespace, stops: StopSignals) -> int:
    from holon_core.runner.report import RunAborted, render_human
    from holon_core.runner.run import RunOptions, run_task
    from holon_core.runner.signals import RunCancelled
    from holon_core.runner.streams import write_safely

    started = time.monotonic()
    try:
        timeout = timeout_option(args.timeout)
        options = RunOptions(
            spec=args.spec,
            goal=goal_option(args.goal, args.goal_file),
            workspace=args.workspace,
            output=args.output,
            runs_dir=args.runs_dir,
            engine=args.engine,
            model=args.model,
            context=args.context,
            system_prompt=args.system_prompt,
            user_prompt=args.user_prompt,
            skills=list(args.skill),
            apply=args.apply,
            keep_snapshot=args.keep_snapshot,
            timeout=timeout,
            max_cost_usd=max_cost_option(args.max_cost),
            record=record_option(args.record, container=args.container is not None),
            progress=not args.quiet,
            container=_container(args),
            serve=args.serve,
            report=args.report,
        )
        env = _agent_settings(args)
        env |= cassette_settings(args, env, container=args.container is not None)
        env |= sandbox_settings(args, env)
        from holon_core.runner.key_guard import guard_key

        guard_key(env)  # the key now lives in env only: not in /proc/<pid>/environ (key_guard)
        result = run_task(options, env=env, stops=stops)
    except (HolonError, RunCancelled) as exc:
        reason = exc.reason if isinstance(exc, HolonError) else "cancelled"
        aborted = RunAborted(str(exc), reason=reason, cancelled=isinstance(exc, RunCancelled))
        return _report_abort(args, aborted, started)
    except RunAborted as exc:
        return _report_abort(args, exc, started)
    write_safely(sys.stdout, result.to_json() if args.json else render_human(result))
    return result.exit_code


def _container(args: argparse.Namespace) -> ContainerOptions | None:
    """``--container [IMAGE]`` and its limits; the limits alone are a usage mistake."""
    from holon_core.runner.container import ContainerOptions

    limits = {"--network": args.network, "--memory": args.memory, "--cpus": args.cpus}
    if args.container is None:
        given = [flag for flag, value in limits.items() if value is not None]
        if given:
            raise InputError(f"{given[0]} needs --container", hint="add --container [IMAGE]")
        return None
    if args.agent is not None:
        raise InputError("--agent and --container exclude each other", hint="drop one of them")
    options = ContainerOptions(args.container or None, args.network, args.memory, args.cpus)
    options.check()
    return options


def _agent_settings(args: argparse.Namespace) -> dict[str, str]:
    """The environment ``run_task`` reads, with ``--agent``/``--agent-paths`` folded in."""
    env = dict(os.environ)
    if args.agent is not None:
        env[AGENT_CMD_ENV] = args.agent
    if args.agent_paths is not None:
        env[AGENT_PATHS_ENV] = args.agent_paths
    mode = env.get(AGENT_PATHS_ENV) or "flags"
    if mode not in AGENT_PATHS:
        raise InputError(
            f"{AGENT_PATHS_ENV}={mode!r} is not one of {', '.join(AGENT_PATHS)}",
            hint="unset it, or use --agent-paths flags|env",
        )
    return env


def _report_abort(args: argparse.Namespace, aborted: RunAborted, started: float) -> int:
    """The human message on stderr; with ``--json`` also the result object on stdout; with
    ``--output DIR`` the failure manifest there (runner/refusal.py)."""
    from holon_core.record.outcome import Decision
    from holon_core.runner.refusal import record_refusal
    from holon_core.runner.streams import write_safely

    if args.output is not None:
        decision = Decision("failure", aborted.reason, aborted.message)
        elapsed = time.monotonic() - started
        aborted.manifest = record_refusal(
            args.output, args.workspace, decision, duration=elapsed, env=os.environ
        )
    kind = "cancelled" if aborted.cancelled else "error"
    message = f"holon run: {kind}: {aborted.message}\n"
    if aborted.run_dir is not None:
        message += f"holon run: the run directory was kept: {aborted.run_dir}\n"
    if aborted.manifest is not None:
        message += f"holon run: the failure is recorded in {aborted.manifest}\n"
    write_safely(sys.stderr, message)
    if args.json:
        workspace = args.workspace.expanduser().absolute()
        write_safely(sys.stdout, aborted.to_json(workspace=workspace, apply=args.apply))
    return 1
