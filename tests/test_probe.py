"""holon-agent --probe: RFC-0002 §3.6 and the checks holon adds."""

from __future__ import annotations

from holon_core.testing import make_task, run_agent


def test_probe_success_writes_minimal_manifest(tmp_path, assert_valid_manifest):
    task = make_task(tmp_path)
    result = run_agent(task, args=["--probe"])
    assert result.exit_code == 0, result.stderr
    manifest = assert_valid_manifest(result.manifest)
    assert manifest["outcome"] == "success" and manifest["artifacts"] == ["manifest.json"]
    meta = manifest["metadata"]
    assert meta["mode"] == "probe" and meta["engine"]["name"] == "replay"
    names = {c["name"] for c in meta["checks"]}
    assert {"spec", "output", "workspace", "adapter", "engine_binary"} <= names
    assert not (task.output / "evidence").exists()  # the probe runs nothing


def test_probe_fails_on_missing_spec_and_names_it(tmp_path, assert_valid_manifest):
    task = make_task(tmp_path)
    task.spec.unlink()
    result = run_agent(task, args=["--probe"])
    assert result.exit_code == 1
    manifest = assert_valid_manifest(result.manifest)
    assert manifest["outcome"] == "failure" and "spec.yaml does not exist" in manifest["error"]
    assert "probe FAIL spec" in result.stderr


def test_probe_fails_on_missing_credentials(tmp_path, assert_valid_manifest):
    task = make_task(tmp_path)
    result = run_agent(task, engine="claude", args=["--probe"])
    assert result.exit_code == 1
    manifest = assert_valid_manifest(result.manifest)
    failing = [c["name"] for c in manifest["metadata"]["checks"] if not c["ok"]]
    assert "credentials" in failing
    assert "ANTHROPIC_API_KEY" in manifest["error"]


def test_probe_fails_on_unknown_engine(tmp_path, assert_valid_manifest):
    task = make_task(tmp_path)
    result = run_agent(task, engine="nosuch", args=["--probe"])
    assert result.exit_code == 1
    assert 'unknown engine "nosuch"' in assert_valid_manifest(result.manifest)["error"]


def test_probe_unwritable_output(tmp_path):
    task = make_task(tmp_path)
    (tmp_path / "f").write_text("x")
    result = run_agent(task, args=["--probe", "--output", str(tmp_path / "f" / "out")])
    assert result.exit_code == 1
    assert "probe FAIL output" in result.stderr
