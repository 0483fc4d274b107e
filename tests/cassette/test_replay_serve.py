"""``holon run --serve --cassette DIR``: a serve turn replays a cassette offline as a one-shot
run does. The session's gateway starts when the session loads, before any turn, so the
session gets the dummy key a one-shot replay gets (none set: the real Claude Code, no key,
the upstream stopped and counted)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.gateway.test_gateway_engines import engine_env
from tests.runner import kit as runner_kit

from .replay_kit import ConnectionCounter, replay_env

HELLO = Path(__file__).resolve().parents[2] / "examples" / "hello"


def holon_run_serve(tmp: Path, out: Path, env: dict[str, str], *extra: str) -> dict[str, object]:
    argv = [sys.executable, "-m", "holon_core", "run", str(HELLO / "spec.yaml"), "--serve"]
    argv += ["--workspace", str(HELLO / "workspace"), "--engine", "claude", "--json"]
    argv += ["--runs-dir", str(tmp / "runs"), "--output", str(out), "--no-report", *extra]
    done = subprocess.run(
        argv,
        env=runner_kit.base_env(tmp) | env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_a_serve_turn_replays_a_cassette_without_a_key(
    engine_binary, https_provider, ca_file, tmp_path
):
    engine_binary("claude")
    server = https_provider("write-and-run")
    cassette = tmp_path / "cassette"
    env = engine_env(server, "claude", ca_file)
    recorded = holon_run_serve(tmp_path, tmp_path / "rec", env, "--record", str(cassette))
    assert recorded["outcome"] == "success", recorded["error"]
    server.stop()
    with ConnectionCounter() as upstream:
        env = replay_env("claude", upstream.url)
        result = holon_run_serve(tmp_path, tmp_path / "replay", env, "--cassette", str(cassette))
    assert (result["outcome"], result["reason"]) == ("success", "ok"), result["error"]
    assert upstream.connections == 0
    manifest = json.loads((tmp_path / "replay" / "manifest.json").read_text())
    replayed = manifest["metadata"]["cassette_replay"]
    assert (replayed["mismatches"], replayed["refused"]) == (0, None)
    assert replayed["served"] >= 3
