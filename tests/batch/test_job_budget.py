"""``limits.max_cost_usd`` of a job file is held to the rule of the spec's
``constraints.budget.max_cost_usd``: a positive, finite number written as a number; anything
else is a bad job file naming the field (exit 1, no cell started)."""

from __future__ import annotations

from pathlib import Path

import pytest

from holon_core.cli.main import main

JOB = "tasks: [{id: a, spec: s.yaml, workspace: .}]\nmatrix: {engines: [replay]}\n"


def _assert_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], section: str, field: str
) -> None:
    """A job file with ``section`` is a bad job file naming ``field``: exit 1, no cell."""
    path = tmp_path / "job.yaml"
    path.write_text(JOB + section + "\n", encoding="utf-8")
    assert main(["batch", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("holon batch: error: ") and field in err, err
    assert "Traceback" not in err
    assert not (tmp_path / "job.results").exists()


@pytest.mark.parametrize("value", ["-1", "0", "abc", ".inf", ".nan", "1e400", '"5"', "[1]"])
def test_a_bad_job_budget_names_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    _assert_refused(tmp_path, capsys, f"limits: {{max_cost_usd: {value}}}", "limits.max_cost_usd")


@pytest.mark.parametrize("value", ["1", "-3", "abc", "99999"])
def test_a_bad_ray_lost_after_names_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    """``ray.lost_after`` (seconds before a silent cluster counts as lost) is 5 to 3600."""
    _assert_refused(tmp_path, capsys, f"ray: {{lost_after: {value}}}", "ray.lost_after")
