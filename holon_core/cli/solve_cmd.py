"""``holon solve REF``: ``holon run`` with the builtin github-solve skill (see README).

Everything that can be checked before a run is: the ref, the token, that the workspace is a
clean clone of the ref's repository, that the token can read the issue, and for a pull
request that the workspace holds its head commit. Then the same runner as
``holon run`` runs a generated spec whose input carries the request envelope; the token
reaches only the engine, as the declared secret ``GITHUB_TOKEN``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from holon_core.cli.cassette_option import add_cassette_options, cassette_settings
from holon_core.cli.record_option import add_record_option, record_option
from holon_core.cli.run_cmd import max_cost_option, report_option, timeout_option
from holon_core.errors import HolonError, InputError
from holon_core.sandbox.flags import add_sandbox_options, sandbox_settings

if TYPE_CHECKING:
    from holon_core.runner.report import RunAborted, RunResult
    from holon_core.runner.signals import StopSignals


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "solve",
        help="solve a GitHub issue or fix a pull request with the github-solve skill",
        description=(
            "Check the ref, the token and the workspace, then run the builtin github-solve "
            "skill through holon run. Without --publish the run ends with publish-intent.json "
            "written and nothing sent. Token: GITHUB_TOKEN, else HOLON_GITHUB_TOKEN; "
            "GITHUB_SERVER_URL and GITHUB_API_URL select GitHub Enterprise."
        ),
    )
    parser.add_argument("ref", help="owner/repo#N, or an issue or pull request URL")
    parser.add_argument(
        "--workspace", type=Path, default=Path(), help="a clone of the repo (default .)"
    )
    parser.add_argument("--engine", help="engine name (else HOLON_ENGINE, only installed)")
    parser.add_argument("--model", help="model passed to the engine")
    parser.add_argument(
        "--publish", action="store_true", help="let the skill push, open the PR and comment"
    )
    parser.add_argument("--base", help="base branch of the PR (default: origin's HEAD, or main)")
    parser.add_argument("--output", type=Path, help="output dir (default: inside the run dir)")
    parser.add_argument("--runs-dir", type=Path, help="where run dirs go (as holon run)")
    parser.add_argument("--timeout", metavar="DURATION", help="wall clock limit, e.g. 30m")
    parser.add_argument(
        "--max-cost",
        metavar="USD",
        help="stop the run once its model calls cost this much (budget_exceeded; docs/gateway.md)",
    )
    parser.add_argument(
        "--keep-snapshot", action="store_true", help="keep the snapshot and run-local homes"
    )
    add_record_option(parser)
    add_cassette_options(parser)
    add_sandbox_options(parser)
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    report_option(parser)


def run(args: argparse.Namespace) -> int:
    from holon_core.runner.signals import StopSignals

    with StopSignals().installed() as stops:
        return _run(args, stops)


def _run(args: argparse.Namespace, stops: StopSignals) -> int:
    from holon_core.runner.report import RunAborted
    from holon_core.runner.run import RunOptions, run_task
    from holon_core.runner.signals import RunCancelled

    env = dict(os.environ)
    try:
        timeout = timeout_option(args.timeout)
        max_cost = max_cost_option(args.max_cost)
        record = record_option(args.record)  # before any GitHub call
        env |= cassette_settings(args, env)
        # The github-solve skill still collects and publishes from inside the run (the GitHub
        # API, the git remote): until that step moves out of the engine's run, solve starts
        # its engine with the room off unless asked (--sandbox on); the record says so.
        env.setdefault("HOLON_SANDBOX", "off")
        env |= sandbox_settings(args, env)
        workspace = args.workspace.expanduser().resolve()
        request, title, token = _prepare(args, env, workspace)
        with tempfile.TemporaryDirectory(prefix="holon-solve-") as tmp:
            from holon_core.solve import write_task

            options = RunOptions(
                spec=write_task(Path(tmp), request, title),
                workspace=workspace,
                output=args.output,
                runs_dir=args.runs_dir,
                engine=args.engine,
                model=args.model,
                keep_snapshot=args.keep_snapshot,
                timeout=timeout,
                max_cost_usd=max_cost,
                record=record,
                progress=not args.quiet,
                report=args.report,
            )
            result = run_task(options, env=_run_env(env, token), stops=stops)
    except (HolonError, RunCancelled) as exc:
        reason = exc.reason if isinstance(exc, HolonError) else "cancelled"
        return _abort(args, RunAborted(str(exc), reason=reason))
    except RunAborted as exc:
        return _abort(args, exc)
    return _report(args, result, request)


def _prepare(
    args: argparse.Namespace, env: dict[str, str], workspace: Path
) -> tuple[dict[str, Any], str, str]:
    """Every check that needs no run: ref, token, clone, the issue itself. Nothing starts."""
    from holon_core.solve import (
        Server,
        check_clean,
        check_clone,
        check_head,
        envelope,
        find_token,
        lookup,
        parse_ref,
        pull_head,
        push_url,
    )

    server = Server.from_env(env)
    ref = parse_ref(args.ref, server.host)
    token = find_token(env)
    if not workspace.is_dir():
        raise InputError(f"workspace {workspace} is not a directory", hint="pass --workspace DIR")
    remote = check_clone(workspace, ref, server.host)
    check_clean(workspace)
    kind, issue = lookup(server, ref, token)
    if kind == "pull_request":
        check_head(workspace, ref, *pull_head(server, ref, token))
    request = envelope(
        ref,
        kind,
        publish=args.publish,
        base=args.base or _default_base(workspace),
        server=server,
        push_url=push_url(remote, ref, server.url),
    )
    _check_engine(args.engine, env)
    return request, str(issue.get("title") or ""), token


def _check_engine(flag: str | None, env: dict[str, str]) -> None:
    """An unknown engine (or none chosen among several) is refused here, naming the installed
    ones, not by the agent after the run dir and snapshot exist (holon run leaves it to the
    agent, which records it in the run's manifest; solve promises no run before its checks)."""
    from holon_core.agent.select import select_engine
    from holon_core.hooks.manager import load_plugins

    select_engine(load_plugins(env), flag, env, None)


def _default_base(workspace: Path) -> str:
    done = subprocess.run(
        ["git", "-C", str(workspace), "symbolic-ref", "-q", "--short", "refs/remotes/origin/HEAD"],
        capture_output=True,
        text=True,
        check=False,
    )
    name = done.stdout.strip().removeprefix("origin/")
    return name or "main"


def _run_env(env: dict[str, str], token: str) -> dict[str, str]:
    """The runner's environment: the token only as ``GITHUB_TOKEN`` (a declared secret the
    runner forwards to the engine), never under its HOLON_ alias, which every agent sees."""
    out = {k: v for k, v in env.items() if k != "HOLON_GITHUB_TOKEN"}
    out["GITHUB_TOKEN"] = token
    return out


#: publish-result.json lists a few actions; anything near this size is not publish.py's.
_PUBLISH_RESULT_CAP = 1 << 20


def _publish_result(result: RunResult) -> dict[str, Any] | None:
    """What publish.py recorded, read as the engine's file it is (the skill runs as the
    engine's tool calls): no link followed, no FIFO opened, capped."""
    from holon_core.untrusted.json_files import read_json_object

    return read_json_object(result.output_dir / "publish-result.json", _PUBLISH_RESULT_CAP)


def _report(args: argparse.Namespace, result: RunResult, request: dict[str, Any]) -> int:
    from holon_core.runner.report import render_human
    from holon_core.runner.streams import write_safely

    published = _publish_result(result)
    code = result.exit_code
    problem = None
    if args.publish and result.outcome == "success":
        if published is None:
            problem = "the skill did not run publish.py: nothing was published"
        elif published.get("ok") is not True:
            problem = f"publishing failed: {published.get('error')}"
    if problem:
        code = 1
    if args.json:
        data = json.loads(result.to_json())
        data |= {"exit_code": code, "solve": {"request": request, "publish": published}}
        if problem:
            data["problems"].append({"code": "publish_failed", "message": problem})
        write_safely(sys.stdout, json.dumps(data, indent=2) + "\n")
        return code
    lines = [render_human(result).rstrip("\n")]
    lines += _publish_lines(published, result.output_dir)
    if problem:
        lines.append(f"holon solve: error: {problem}")
    write_safely(sys.stdout, "\n".join(lines) + "\n")
    return code


def _publish_lines(published: dict[str, Any] | None, output: Path) -> list[str]:
    if published is None:
        return []
    if published.get("dry_run"):
        return [
            f"dry run: nothing sent; the intent is {output / 'publish-intent.json'} "
            "(rerun with --publish to send it)"
        ]
    from holon_core.untrusted.json_files import objects

    lines = []
    for action in objects(published.get("actions")):
        where = action.get("url") or action.get("branch") or action.get("comment_id") or ""
        lines.append(f"published: {action.get('action')} {action.get('status')} {where}".rstrip())
    return lines


def _abort(args: argparse.Namespace, aborted: RunAborted) -> int:
    from holon_core.runner.streams import write_safely

    kind = "cancelled" if aborted.cancelled else "error"
    write_safely(sys.stderr, f"holon solve: {kind}: {aborted.message}\n")
    if args.json:
        workspace = args.workspace.expanduser().absolute()
        write_safely(sys.stdout, aborted.to_json(workspace=workspace, apply=False))
    return 1
