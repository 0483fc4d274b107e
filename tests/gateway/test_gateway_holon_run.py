"""``holon run`` through the gateway: the CA settings reach holon-agent's gateway, and
``--max-cost`` stops the run ``budget_exceeded``."""

from __future__ import annotations

import json

from holon_core.testing.task import git
from tests.runner import kit as runner_kit

from .test_gateway_engines import engine_env


def holon_run(tmp_path, args, env):
    return runner_kit.holon_run(tmp_path, args, env=env, timeout=240)


def workspace(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "README.md").write_text("hi\n")
    git(ws, "init", "-q", "-b", "main")
    git(ws, "add", "-A")
    git(ws, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "init")
    return ws


def test_max_cost_stops_a_holon_run_over_https(engine_binary, https_provider, ca_file, tmp_path):
    engine_binary("claude")
    server = https_provider("write-and-run")
    ws = workspace(tmp_path)
    argv = ["--goal", "Create hello.txt", "--workspace", str(ws), "--engine", "claude"]
    ran = holon_run(
        tmp_path, [*argv, "--max-cost", "0.0001", "--json"], engine_env(server, "claude", ca_file)
    )
    result = json.loads(ran.stdout)
    assert (result["outcome"], result["reason"]) == ("failure", "budget_exceeded"), ran.stderr
    found = next((tmp_path / "runs").glob("*/output/manifest.json"))
    manifest = json.loads(found.read_text())
    meta = manifest["metadata"]
    # The gateway reached the HTTPS upstream: holon run passed SSL_CERT_FILE on.
    assert meta["gateway"]["upstream"] == server.url
    assert meta["budget"]["max_cost_usd"] == 0.0001
    assert meta["budget"]["spent"]["model_calls"] == 1


def test_a_max_cost_that_is_no_amount_is_refused(tmp_path):
    ws = workspace(tmp_path)
    argv = ["--goal", "x", "--workspace", str(ws), "--engine", "replay", "--max-cost", "lots"]
    ran = holon_run(tmp_path, argv, {})
    assert ran.exit_code == 1
    assert "--max-cost: 'lots' is not a positive number of US dollars" in ran.stderr


def test_holon_solve_takes_max_cost_and_refuses_no_amount(tmp_path):
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "holon_core.cli.main", "solve", "o/r#1", "--max-cost", "lots"],
        env=runner_kit.base_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    assert "--max-cost: 'lots' is not a positive number of US dollars" in done.stderr
