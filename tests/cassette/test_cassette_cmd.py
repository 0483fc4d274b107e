"""holon cassette list|show on cassettes the real Claude Code recorded through the gateway."""

from __future__ import annotations

import json
import shutil

import pytest

from holon_core.cassette.format import read_cassette
from holon_core.cli.main import main
from holon_core.testing import make_task, run_agent
from tests.gateway.test_gateway_engines import engine_env


@pytest.fixture
def recorded(engine_binary, https_provider, ca_file, tmp_path):
    engine_binary("claude")
    server = https_provider("write-and-run")
    task = make_task(tmp_path / "task", goal="Create hello.txt", files={"README.md": "hi\n"})
    shelf = tmp_path / "shelf"
    (shelf / "team").mkdir(parents=True)
    target = shelf / "team" / "hello"
    env = engine_env(server, "claude", ca_file) | {"HOLON_RECORD": str(target)}
    result = run_agent(task, "claude", env=env, timeout=240)
    assert result.manifest is not None and result.manifest["outcome"] == "success", result.stderr
    return shelf, target


def test_list_finds_each_cassette_with_engine_model_outcome_calls_size(recorded, capsys):
    shelf, target = recorded
    shutil.copytree(target, shelf / "copy")
    (shelf / "notes").mkdir()
    (shelf / "notes" / "readme.txt").write_text("not a cassette\n")
    assert main(["cassette", "list", str(shelf)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["PATH", "ENGINE", "MODEL", "OUTCOME", "CALLS", "SIZE"]
    calls = len(read_cassette(target).calls)
    assert [line.split()[0] for line in lines[1:]] == ["copy", "team/hello"]
    for line in lines[1:]:
        assert "claude" in line and "claude-sonnet-4-5" in line and "success" in line
        assert f" {calls} " in line and "KiB" in line
    assert main(["cassette", "list", "--json", str(shelf)]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["path"], r["calls"], r["outcome"]) for r in rows] == [
        ("copy", calls, "success"),
        ("team/hello", calls, "success"),
    ]
    assert rows[0]["bytes"] == read_cassette(target).size_bytes()


def test_show_prints_what_ran_and_every_call(recorded, capsys):
    _, target = recorded
    cassette = read_cassette(target)
    assert main(["cassette", "show", str(target)]) == 0
    out = capsys.readouterr().out
    assert "outcome    success (ok)" in out and "claude-sonnet-4-5" in out
    table = out.split("\n\n", 1)[1].splitlines()
    assert table[0].split()[:3] == ["#", "KIND", "REQUEST"]
    assert len(table) == 1 + len(cassette.calls)
    assert all("POST /v1/messages" in row and " 200 " in row for row in table[1:])
    assert all("events" in row for row in table[1:])


def test_unreadable_or_missing_cassettes_are_named(recorded, capsys, tmp_path):
    shelf, target = recorded
    (target / "cassette.json").write_text('{"format": "holon-cassette", "version": 9}')
    assert main(["cassette", "list", str(shelf)]) == 1
    captured = capsys.readouterr()
    assert "unreadable" in captured.out
    assert "format version 9; this holon reads version 1" in captured.err
    assert main(["cassette", "show", str(tmp_path / "nothing")]) == 1
    assert "is not a directory" in capsys.readouterr().err
    assert main(["cassette", "show", str(shelf)]) == 1
    assert "has no cassette.json" in capsys.readouterr().err
