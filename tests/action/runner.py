"""A simulated GitHub Actions runner for one step: the files and variables a runner gives a
step (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_WORKSPACE, RUNNER_TEMP, ...), the step run as
a process, and the outputs file read back the way the runner reads it."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.runner.kit import base_env


@dataclass
class Step:
    exit_code: int
    stdout: str
    stderr: str
    outputs: dict[str, str]
    summary: str


def runner_env(tmp: Path, workspace: Path) -> dict[str, str]:
    runner = tmp / "runner"
    (runner / "temp").mkdir(parents=True, exist_ok=True)
    (runner / "output").write_text("")
    (runner / "summary.md").write_text("")
    return base_env(tmp) | {
        "CI": "true",
        "GITHUB_ACTIONS": "true",
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_OUTPUT": str(runner / "output"),
        "GITHUB_STEP_SUMMARY": str(runner / "summary.md"),
        "GITHUB_REPOSITORY": "octo/app",
        "GITHUB_RUN_ID": "42",
        "RUNNER_TEMP": str(runner / "temp"),
        "RUNNER_OS": "Linux",
    }


def run_step(env: dict[str, str], *args: str, cwd: Path | None = None) -> Step:
    done = subprocess.run(
        [sys.executable, "-m", "holon_core", "action", *args],
        env=env,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    output = Path(env.get("GITHUB_OUTPUT", "/nonexistent"))
    summary = Path(env.get("GITHUB_STEP_SUMMARY", "/nonexistent"))
    return Step(
        done.returncode,
        done.stdout,
        done.stderr,
        parse_outputs(output.read_text()) if output.is_file() else {},
        summary.read_text() if summary.is_file() else "",
    )


def parse_outputs(text: str) -> dict[str, str]:
    """GITHUB_OUTPUT as the runner reads it: ``name=value`` lines and
    ``name<<DELIMITER`` ... ``DELIMITER`` blocks (the runner's file command format)."""
    outputs: dict[str, str] = {}
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line:
            continue
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            value: list[str] = []
            while lines[i] != delimiter:
                value.append(lines[i])
                i += 1
            i += 1
            outputs[name] = "\n".join(value)
        else:
            name, value_text = line.split("=", 1)
            outputs[name] = value_text
    return outputs
