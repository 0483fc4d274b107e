"""What ``--cassette`` refuses says what is wrong with the path given, in the words a user
typed (the table of cases both paths share is ``tests/refusal_cases.py``)."""

from __future__ import annotations

from pathlib import Path

from holon_core.testing import make_task, run_agent


def test_a_file_given_as_the_cassette_is_named_as_not_a_directory(tmp_path: Path) -> None:
    task = make_task(tmp_path / "t", replay=[{"say": "done"}])
    given = tmp_path / "calls.ndjson"
    given.write_text("{}\n")
    result = run_agent(task, "claude", args=["--cassette", str(given), "--probe"])
    assert result.exit_code == 1 and result.manifest is not None
    assert result.manifest["error"] == (
        f"--cassette (HOLON_CASSETTE) names {given}, which is not a directory "
        "(give the directory --record wrote)"
    )


def test_the_probe_says_which_cassette_it_checked(tmp_path: Path) -> None:
    from tests.refusal_cases import cassette

    task = make_task(tmp_path / "t", replay=[{"say": "done"}])
    root = cassette(tmp_path)
    env = {"HOLON_CASSETTE_MODE": "lenient"}
    result = run_agent(task, "claude", env=env, args=["--cassette", str(root), "--probe"])
    assert result.exit_code == 0, result.stderr
    assert f"probe ok   cassette: {root}: 0 recorded calls, lenient replay" in result.stderr


def test_the_probe_says_where_the_cassette_goes(tmp_path: Path) -> None:
    task = make_task(tmp_path / "t", replay=[{"say": "done"}])
    target = tmp_path / "rec"
    env = {"ANTHROPIC_API_KEY": "sk-ant-test-probe-0009"}
    result = run_agent(task, "claude", env=env, args=["--record", str(target), "--probe"])
    assert result.exit_code == 0, result.stderr
    assert f"probe ok   record: the run's cassette goes to {target}" in result.stderr
    assert not target.exists()
