"""Usage errors never exit 2 (that code means "needs human"), and a reader that closes the
pipe early (``holon engines list --json | head -1``) never produces a traceback."""

from __future__ import annotations

import os
import sys

import pytest

from .kit import closed_pipe, run, script


@pytest.mark.parametrize(
    ("command", "args", "complaint"),
    [
        ("holon-agent", ["--no-such-flag"], "unrecognized arguments: --no-such-flag"),
        ("holon-agent", ["--engine"], "argument --engine: expected one argument"),
        ("holon", ["run"], "the following arguments are required: SPEC or --goal TEXT"),
        ("holon", ["run", "spec.yaml", "--no-such-flag"], "unrecognized arguments"),
        ("holon", ["no-such-command"], "invalid choice: 'no-such-command'"),
        ("holon", ["schema"], "the following arguments are required: which"),
        ("holon", ["plugins", "--no-such-flag"], "unrecognized arguments"),
    ],
)
def test_usage_error_exits_1_with_the_usage(command: str, args: list[str], complaint: str) -> None:
    done = run([script(command), *args])
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith("usage: "), done.stderr
    assert complaint in done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_an_engine_no_adapter_ships_is_named_with_the_fix() -> None:
    done = run([script("holon"), "engines", "install", "nope"])
    assert done.returncode == 1 and done.stdout == ""
    assert 'no installed adapter ships an engine named "nope"' in done.stderr
    assert "pip install holon-adapter-nope" in done.stderr and "Traceback" not in done.stderr


def test_bare_holon_prints_help_and_exits_1() -> None:
    done = run([script("holon")])
    assert done.returncode == 1 and "usage: holon" in done.stderr and done.stdout == ""


@pytest.mark.parametrize(
    "args", [["engines", "list", "--json"], ["plugins", "--json"], ["plugins"], ["--help"]]
)
def test_closed_stdout_is_not_a_crash(args: list[str]) -> None:
    """``| head -1`` closed the pipe: no traceback, no exit 120 from the final flush."""
    pipe = closed_pipe()
    try:
        done = run([script("holon"), *args], stdout=pipe)
    finally:
        os.close(pipe)
    assert done.stderr == ""
    assert done.returncode == 0


def test_closed_stderr_on_an_error_is_not_a_crash(tmp_path) -> None:
    """The error message cannot be shown, but the exit code still says it failed."""
    pipe = closed_pipe()
    try:
        done = run(
            [script("holon"), "engines", "install", "--force", "claude"],
            env={"PATH": str(tmp_path)},  # no npm: a HolonError, reported on stderr
            stderr=pipe,
        )
    finally:
        os.close(pipe)
    assert done.returncode == 1 and done.stdout == ""


def test_python_dash_m_holon_core_is_holon() -> None:
    done = run([sys.executable, "-m", "holon_core", "--version"])
    assert done.returncode == 0 and done.stdout.startswith("holon ")
    done = run([sys.executable, "-m", "holon_core", "bogus"])
    assert done.returncode == 1 and "usage: holon" in done.stderr


def test_holon_provider_version() -> None:
    done = run([script("holon-provider"), "--version"])
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("holon-provider ")
    assert run([script("holon-provider"), "--help"]).returncode == 0
