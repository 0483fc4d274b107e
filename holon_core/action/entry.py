"""The action's two entries: ``run`` (the inputs -> holon -> outputs and summary) and
``summarize`` (outputs and summary of a run made some other way)."""

from __future__ import annotations

import shlex
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

from holon_core.action.github import (
    StepFileError,
    annotation,
    append_summary,
    step_file,
    write_outputs,
)
from holon_core.action.inputs import ActionInputError, holon_argv, read_inputs
from holon_core.action.result import RunResult, read_result, refused
from holon_core.action.summary import job_summary, why


def run_action(env: Mapping[str, str]) -> int:
    """Run the task the inputs describe; the step's exit code is holon's."""
    try:
        files = step_file(env, "GITHUB_OUTPUT"), step_file(env, "GITHUB_STEP_SUMMARY")
        inputs = read_inputs(env)
    except StepFileError as exc:
        print(f"holon action: error: {exc}", file=sys.stderr)
        return 1
    except ActionInputError as exc:
        return report(refused("invalid_action_input", str(exc)), files, env)
    base = Path(env.get("RUNNER_TEMP") or tempfile.gettempdir())
    output = Path(tempfile.mkdtemp(prefix="holon-", dir=base)) / "output"
    argv = [sys.executable, "-m", "holon_core", *holon_argv(inputs, output)]
    print(f"holon action: holon {shlex.join(argv[3:])}", file=sys.stderr, flush=True)
    code = subprocess.run(argv, stdin=subprocess.DEVNULL, check=False).returncode
    return report(read_result(output, code), files, env)


def summarize(output: Path, exit_code: int | None, env: Mapping[str, str]) -> int:
    """Outputs and summary for the run in ``output``; returns the run's exit code."""
    try:
        files = step_file(env, "GITHUB_OUTPUT"), step_file(env, "GITHUB_STEP_SUMMARY")
    except StepFileError as exc:
        print(f"holon action: error: {exc}", file=sys.stderr)
        return 1
    return report(read_result(output, exit_code), files, env)


def report(result: RunResult, files: tuple[Path, Path], env: Mapping[str, str]) -> int:
    """Write the step's outputs and job summary; an annotation unless the run succeeded."""
    outputs_file, summary_file = files
    write_outputs(outputs_file, step_outputs(result))
    append_summary(summary_file, job_summary(result))
    if result.outcome != "success":
        level = "warning" if result.outcome == "needs_human" else "error"
        message = why(result) + (f" {result.error}" if result.error else "")
        print(annotation(level, f"holon: {result.outcome} ({result.reason})", message))
    return result.exit_code


def step_outputs(result: RunResult) -> dict[str, str]:
    """The outputs action.yml declares, every one always set ('' when unknown)."""

    def path(value: Path | None) -> str:
        return "" if value is None else str(value)

    return {
        "outcome": result.outcome,
        "reason": result.reason,
        "exit-code": str(result.exit_code),
        "cost-usd": "" if result.cost_usd is None else f"{result.cost_usd:.6f}",
        "tokens": "" if result.tokens is None else str(result.tokens),
        "files-changed": "" if result.files_changed is None else str(result.files_changed),
        "manifest": path(result.manifest),
        "patch": path(result.patch),
        "report": path(result.report),
        "trajectory": path(result.trajectory),
        "pull-request": result.pull_request or "",
        "output-dir": path(result.manifest.parent if result.manifest else None),
    }
