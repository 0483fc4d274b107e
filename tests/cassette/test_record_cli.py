"""--record on holon run, holon solve and holon-agent: where the cassette goes, and the
refusals before any model call (a target that cannot take a cassette, no gateway)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from holon_core.cassette.format import read_cassette
from holon_core.runner.report import RunResult, render_human
from holon_core.testing import make_task, run_agent
from tests.gateway.test_gateway_engines import engine_env
from tests.gateway.test_gateway_holon_run import workspace
from tests.runner import kit as runner_kit


def holon(tmp_path, *args, env=None, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "holon_core.cli.main", *args],
        env={**runner_kit.base_env(tmp_path), **(env or {})},
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )


def test_holon_run_records_into_a_dir_relative_to_the_caller(
    engine_binary, https_provider, ca_file, tmp_path
):
    engine_binary("claude")
    server = https_provider("write-and-run")
    ws = workspace(tmp_path)
    argv = ["run", "--goal", "Create hello.txt", "--workspace", str(ws), "--engine", "claude"]
    env = engine_env(server, "claude", ca_file)
    done = holon(tmp_path, *argv, "--record", "cassettes/hello", "--json", env=env, cwd=tmp_path)
    result = json.loads(done.stdout)
    assert result["outcome"] == "success", done.stderr
    target = tmp_path / "cassettes" / "hello"
    cassette = read_cassette(target)
    assert cassette.info.engine.name == "claude" and len(cassette.calls) >= 3
    manifest = json.loads(next((tmp_path / "runs").glob("*/output/manifest.json")).read_text())
    assert manifest["metadata"]["cassette"]["path"] == str(target)
    assert "hello.txt" in cassette.diff()
    assert result["paths"]["cassette"] == str(target)  # and `holon run` says where it went
    human = render_human(RunResult(**{**_fields(result), "cassette": target}))
    assert f"  cassette  {target}\n" in human


def test_a_target_that_cannot_take_a_cassette_is_refused_before_the_run(tmp_path):
    ws = workspace(tmp_path)
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "notes.txt").write_text("mine\n")
    argv = ["run", "--goal", "x", "--workspace", str(ws), "--engine", "replay"]
    done = holon(tmp_path, *argv, "--record", str(tmp_path / "taken"))
    assert done.returncode == 1
    assert "--record: no cassette can be written at" in done.stderr
    assert "holds files but no cassette" in done.stderr
    assert not (tmp_path / "runs").exists() or not list((tmp_path / "runs").iterdir())
    done = holon(tmp_path, *argv, "--record", str(tmp_path / "c"), "--container")
    assert done.returncode == 1 and "does not work with --container" in done.stderr
    solve = holon(tmp_path, "solve", "o/r#1", "--record", str(tmp_path / "taken" / "notes.txt"))
    assert solve.returncode == 1
    assert "exists and is not a directory" in solve.stderr


def test_holon_agent_refuses_to_record_without_the_gateway(
    engine_binary, scripted_provider, tmp_path
):
    engine_binary("claude")
    server = scripted_provider("write-and-run")
    target = tmp_path / "cassette"
    for engine, env, why in (
        ("claude", server.engine_env("claude") | {"HOLON_GATEWAY": "off"}, "HOLON_GATEWAY is off"),
        ("replay", {}, "engine replay declares no model API"),
    ):
        task = make_task(tmp_path / engine, goal="Create hello.txt")
        result = run_agent(task, engine, env=env, args=["--record", str(target)], timeout=120)
        assert result.exit_code == 1, result.stderr
        assert result.reason == "invalid_input"
        assert result.manifest is not None
        error = result.manifest["error"]
        assert "records the model calls the gateway sees" in error and why in error
        assert not target.exists()


def test_the_probe_refuses_what_the_run_refuses(tmp_path):
    """holon-agent --probe and the run give the same verdict on --record (one admission)."""
    (tmp_path / "file").write_text("x\n")
    cases = [
        (str(tmp_path / "file"), {}, "exists and is not a directory"),
        (str(tmp_path / "new"), {}, "engine replay declares no model API"),
        (str(tmp_path / "new"), {"HOLON_GATEWAY": "off"}, "HOLON_GATEWAY is off"),
    ]
    for target, env, says in cases:
        task = make_task(tmp_path / f"t{len(says)}", goal="Create hello.txt", replay=[])
        probe = run_agent(task, "replay", env=env, args=["--probe", "--record", target])
        run = run_agent(task, "replay", env=env, args=["--record", target])
        for result in (probe, run):
            assert result.exit_code == 1, result.stderr
            assert result.manifest is not None and result.reason == "invalid_input"
            assert says in result.manifest["error"]
        assert probe.manifest is not None and run.manifest is not None
        assert probe.manifest["error"] == run.manifest["error"]
        assert not (tmp_path / "new").exists()


def test_recording_while_replaying_is_refused_and_the_cassette_kept(tmp_path):
    """--record with --cassette (the same dir here) would record nothing over the cassette."""
    cassette = tmp_path / "cassette"
    cassette.mkdir()
    (cassette / "cassette.json").write_text("{}")
    task = make_task(tmp_path / "t", goal="Create hello.txt", replay=[])
    env = {"HOLON_CASSETTE": str(cassette)}
    for args in (["--probe", "--record", str(cassette)], ["--record", str(cassette)]):
        result = run_agent(task, "replay", env=env, args=args)
        assert result.exit_code == 1, result.stderr
        assert result.manifest is not None
        error = result.manifest["error"]
        assert "--record (HOLON_RECORD) and --cassette (HOLON_CASSETTE) together" in error
    assert (cassette / "cassette.json").read_text() == "{}"


def _fields(result: dict[str, object]) -> dict[str, object]:
    """A RunResult's required fields from ``holon run --json``."""
    paths = result["paths"]
    assert isinstance(paths, dict)
    return {
        "run_id": result["run_id"],
        "run_dir": Path(paths["run_dir"]),
        "workspace": Path(paths["workspace"]),
        "output_dir": Path(paths["output_dir"]),
        "outcome": result["outcome"],
    }
