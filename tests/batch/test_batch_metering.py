"""A job with a cost limit and an engine whose model calls holon cannot meter is refused
before any cell runs, naming the engine's cells and the fix; the replay engine, which calls
no model, keeps its cost of 0 under the same limit and runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from holon_core.cli.main import main

from .kit import four_tasks, write_job

ACP_SETTINGS = ("HOLON_ACP_MODEL_API", "HOLON_ACP_BASE_URL_ENV", "HOLON_ACP_COMMAND")


@pytest.fixture
def job(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in (*ACP_SETTINGS, "HOLON_GATEWAY", "HOLON_MAX_COST_USD"):
        monkeypatch.delenv(name, raising=False)
    tasks = [t for t in four_tasks(tmp_path) if t["id"] in ("inline", "one")]
    return write_job(tmp_path, tasks, ["replay", "acp"])


@pytest.mark.parametrize("limit", ["--max-cost", "limits.max_cost_usd"])
def test_an_unmeterable_engine_is_refused_before_any_cell_runs(
    job: Path, capsys: pytest.CaptureFixture[str], limit: str
) -> None:
    if limit == "--max-cost":
        argv = ["batch", str(job), "--max-cost", "2"]
    else:
        job.write_text(job.read_text() + "limits: {max_cost_usd: 2}\n", encoding="utf-8")
        argv = ["batch", str(job)]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith("holon batch: error: "), err
    assert "engine acp (2 cells: one.acp.1, inline.acp.1)" in err, err
    assert "HOLON_ACP_MODEL_API" in err and "no cell was started" in err
    assert "replay" not in err  # it calls no model: nothing to meter
    assert not (job.parent / "job.results" / "cells").exists()


def test_with_the_gateway_off_every_model_calling_engine_is_named(
    job: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOLON_GATEWAY", "off")
    assert main(["batch", str(job), "--max-cost", "2"]) == 1
    err = capsys.readouterr().err
    assert "engine acp (2 cells" in err and "unset HOLON_GATEWAY" in err, err


def test_the_replay_engine_runs_under_a_cost_limit_at_a_cost_of_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("HOLON_MAX_COST_USD", raising=False)
    tasks = [t for t in four_tasks(tmp_path) if t["id"] == "inline"]
    job = write_job(tmp_path, tasks, ["replay"], limits={"max_cost_usd": 1})
    assert main(["batch", str(job), "--max-cost", "0.5", "--json", "--no-report"]) == 0
    (row,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert (row["outcome"], row["cost_usd"]) == ("success", 0.0), row
