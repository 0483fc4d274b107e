"""``holon run --container`` through the model gateway: the gateway lives with holon-agent
inside the container (the process that holds the key), the engine reaches it on the
container's loopback, and the manifest has the wire's usage and cost; the engine's tools see
only the placeholder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import IMAGE, ROOT
from holon_conformance.provider import ScriptedProvider, parse_scenario

SPEC = ROOT / "examples" / "hello" / "spec.yaml"
REAL_KEY = "sk-real-container-0123456789abcdef0123456789"
#: The write-and-run task, with the shell step also printing the engine's environment.
TURNS = [
    {"say": "I will create hello.txt.", "write_file": {"path": "hello.txt", "content": "hi\n"}},
    {"run_shell": {"command": "cat hello.txt && env | sort"}},
    {"final": {"text": "Created hello.txt."}},
]


def test_claude_in_the_container_runs_through_the_gateway_without_the_key(
    podman: str, hello: Path, tmp_path: Path
) -> None:
    scenario = parse_scenario({"turns": TURNS}, "container-gateway")
    with ScriptedProvider(scenario, api_key=REAL_KEY) as provider:  # takes only the real key
        env = provider.engine_env("claude") | {
            "ANTHROPIC_API_KEY": REAL_KEY,
            "HOLON_MODEL": "claude-sonnet-4-5",
            "HOLON_GATEWAY": "on",
        }
        output = tmp_path / "out"
        argv = [sys.executable, "-m", "holon_core", "run", str(SPEC), "--workspace", str(hello)]
        argv += ["--engine", "claude", "--output", str(output), "--runs-dir", str(tmp_path)]
        argv += ["--json", "--quiet", "--container", IMAGE]
        done = subprocess.run(
            argv, env={**os.environ, **env}, capture_output=True, text=True, check=False
        )
        sent = "\n".join(request.text() for request in provider.requests)
        turns = len(provider.turn_requests())
    result = json.loads(done.stdout or "{}")
    assert result.get("outcome") == "success", done.stderr[-3000:]
    meta = json.loads((output / "manifest.json").read_text())["metadata"]
    assert meta["gateway"]["state"] == "on", meta.get("gateway")
    assert meta["usage"]["source"] == "gateway" and meta["usage"]["model_calls"] >= turns >= 3
    assert meta["cost"]["source"] == "gateway" and meta["cost"]["usd"] > 0
    # the env dump reached the model: the placeholder is there, the key nowhere
    assert "holon-placeholder-" in sent
    assert REAL_KEY not in sent
    assert REAL_KEY not in (output / "evidence" / "events.ndjson").read_text()
