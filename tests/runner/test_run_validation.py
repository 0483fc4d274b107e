"""`holon run` trusts nothing the agent says about itself: a missing or schema-invalid manifest,
a missing required artifact, or an output dir it must not clear are all reported as failures."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from holon_core.testing import snapshot_tree

from .kit import ENGINE_STEPS, fake_agent_cmd, holon_run, make_workspace, run_dirs, write_task

KINDS = ["git", "plain"]


def fake(mode: str, exit_code: int = 0) -> dict[str, str]:
    return {
        "HOLON_AGENT_CMD": fake_agent_cmd(),
        "HOLON_FAKE_AGENT": mode,
        "HOLON_FAKE_EXIT": str(exit_code),
    }


@pytest.mark.parametrize("kind", KINDS)
def test_missing_manifest_is_a_failure(tmp_path: Path, kind: str) -> None:
    ws = make_workspace(tmp_path / "ws", kind)
    spec = write_task(tmp_path / "task", [])
    before = snapshot_tree(ws)

    ran = holon_run(tmp_path, [str(spec), "--workspace", str(ws), "--apply"], fake("missing"))

    assert ran.exit_code == 1  # although the agent exited 0
    assert "holon run: failure (missing_manifest)" in ran.stdout
    assert "the agent wrote no manifest.json" in ran.stdout
    assert "applied   no: validation failed" in ran.stdout
    assert snapshot_tree(ws) == before


@pytest.mark.parametrize("kind", KINDS)
def test_schema_invalid_manifest_is_a_failure(
    tmp_path: Path, kind: str, manifest_schema: dict[str, Any]
) -> None:
    ws = make_workspace(tmp_path / "ws", kind)
    spec = write_task(tmp_path / "task", [])
    before = snapshot_tree(ws)

    ran = holon_run(tmp_path, [str(spec), "--workspace", str(ws), "--json"], fake("invalid"))

    assert ran.exit_code == 1
    result = ran.json
    assert result["outcome"] == "failure" and result["reason"] == "invalid_manifest"
    assert result["agent_exit_code"] == 0
    assert "does not match the manifest schema" in result["error"]
    assert "outcome" in result["error"]  # names the offending field
    bad = json.loads(Path(result["paths"]["manifest"]).read_text())
    with pytest.raises(jsonschema.ValidationError):  # the published schema agrees
        jsonschema.validate(bad, manifest_schema)
    assert snapshot_tree(ws) == before


def test_valid_manifest_from_another_agent_is_accepted(
    tmp_path: Path, manifest_schema: dict[str, Any]
) -> None:
    ws = make_workspace(tmp_path / "ws", "plain")
    spec = write_task(tmp_path / "task", [])
    ran = holon_run(tmp_path, [str(spec), "--workspace", str(ws), "--json"], fake("valid"))
    assert ran.exit_code == 0, ran.stdout + ran.stderr
    result = ran.json
    assert result["valid"] is True and result["problems"] == []
    jsonschema.validate(json.loads(Path(result["paths"]["manifest"]).read_text()), manifest_schema)


def test_exit_code_outcome_mismatch_is_a_warning(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", "plain")
    spec = write_task(tmp_path / "task", [])
    ran = holon_run(tmp_path, [str(spec), "--workspace", str(ws), "--json"], fake("valid", 2))
    result = ran.json
    assert ran.exit_code == 2  # the agent's code stands when the record is valid
    assert any("exited 2" in w for w in result["warnings"])


@pytest.mark.parametrize("kind", KINDS)
def test_missing_required_artifact_is_a_failure(tmp_path: Path, kind: str) -> None:
    """Through the real agent: it reports missing_artifacts and the runner confirms it."""
    ws = make_workspace(tmp_path / "ws", kind)
    spec = write_task(
        tmp_path / "task", ENGINE_STEPS, artifacts=[{"path": "report.md", "required": True}]
    )
    before = snapshot_tree(ws)

    ran = holon_run(
        tmp_path, [str(spec), "--workspace", str(ws), "--engine", "replay", "--apply", "--json"]
    )

    assert ran.exit_code == 1
    result = ran.json
    assert [p["code"] for p in result["problems"]] == ["missing_artifacts"]
    assert "report.md" in result["error"]
    assert result["applied"] is False
    assert snapshot_tree(ws) == before


def test_missing_artifact_caught_even_when_the_agent_claims_success(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", "git")
    spec = write_task(tmp_path / "task", [], artifacts=[{"path": "report.md", "required": True}])
    ran = holon_run(tmp_path, [str(spec), "--workspace", str(ws), "--json"], fake("valid"))
    assert ran.exit_code == 1
    assert ran.json["reason"] == "missing_artifacts"


def test_unrelated_output_dir_is_refused_and_left_alone(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", "plain")
    spec = write_task(tmp_path / "task", ENGINE_STEPS)
    out = tmp_path / "my-files"
    out.mkdir()
    (out / "thesis.tex").write_text("years of work\n")
    before = snapshot_tree(out)

    ran = holon_run(
        tmp_path, [str(spec), "--workspace", str(ws), "--output", str(out), "--engine", "replay"]
    )

    assert ran.exit_code == 1
    assert "has no .holon-owned marker" in ran.stderr
    assert "refusing to delete" in ran.stderr
    assert snapshot_tree(out) == before
    assert run_dirs(tmp_path) == []  # nothing half-made left behind


def test_failed_outcome_is_not_applied(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", "git")
    spec = write_task(tmp_path / "task", [*ENGINE_STEPS, {"outcome": "failure"}])
    before = snapshot_tree(ws)
    ran = holon_run(
        tmp_path, [str(spec), "--workspace", str(ws), "--engine", "replay", "--apply", "--json"]
    )
    assert ran.exit_code == 1
    result = ran.json
    assert result["valid"] is True and result["outcome"] == "failure"
    assert result["applied"] is False and "not success" in result["apply_error"]
    assert snapshot_tree(ws) == before


@pytest.mark.parametrize("mode", ["huge", "link"])
def test_a_manifest_too_big_or_not_a_file_is_refused_without_reading_it_all(
    tmp_path: Path, mode: str
) -> None:
    ws = make_workspace(tmp_path / "ws", "plain")
    spec = write_task(tmp_path / "task", [])

    ran = holon_run(tmp_path, [str(spec), "--workspace", str(ws), "--json"], fake(mode))

    assert ran.exit_code == 1
    assert ran.json["reason"] == "invalid_manifest"
    assert "is not a regular file of at most 8 MiB" in ran.json["error"]


def test_an_agent_that_died_early_is_explained(tmp_path: Path) -> None:
    # The real holon-agent, refused at its command line (as a container runtime that cannot
    # start the image refuses): the run names the agent's own last words, not only the log.
    ws = make_workspace(tmp_path / "ws", "plain")
    spec = write_task(tmp_path / "task", [])
    agent = f"{sys.executable} -m holon_core.agent.main --no-such-flag"
    ran = holon_run(tmp_path, [str(spec), "--workspace", str(ws), "--json"],
                    {"HOLON_AGENT_CMD": agent, "SOME_API_KEY": "--no-such-flag"})  # fmt: skip
    assert ran.exit_code == 1
    result = ran.json
    assert result["reason"] == "missing_manifest"
    assert "exited with code 1" in result["error"], result["error"]
    assert "unrecognized arguments" in result["error"], result["error"]
    assert "agent.stderr.log" in result["problems"][0]["message"]
    assert "--no-such-flag" not in result["error"]  # a secret's value is redacted here too


def test_replay_without_a_script_says_where_one_goes(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", "plain")
    spec = write_task(tmp_path / "task", [])
    (tmp_path / "task" / "context" / "replay.yaml").unlink()
    ran = holon_run(tmp_path, [str(spec), "--workspace", str(ws), "--engine", "replay", "--json"])
    assert ran.exit_code == 1
    assert "HOLON_REPLAY_SCRIPT" in ran.json["error"] and "context/replay.yaml" in ran.json["error"]
