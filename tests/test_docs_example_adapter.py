"""The example adapter of docs/writing-an-adapter.md works as the page says (the docs are
tested, not just written)."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

from holon_core.testing import make_task, run_agent

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "docs" / "adapters" / "example"
PLUGIN = {"HOLON_PLUGINS": "holon_adapter_echo", "PYTHONPATH": str(EXAMPLE)}


def test_the_example_adapter_runs_a_task(tmp_path, assert_valid_manifest):
    """The toy's offline echo: no ECHO_BASE_URL, so no gateway (which would always set it)."""
    task = make_task(tmp_path, goal="Say hello to the docs")
    env = {**PLUGIN, "ECHO_API_KEY": "k-123456", "HOLON_GATEWAY": "off"}
    result = run_agent(task, engine="echo", env=env)
    assert result.exit_code == 0, result.stderr
    manifest = assert_valid_manifest(result.manifest)
    assert manifest["metadata"]["session_id"] == "echo-1"
    assert manifest["metadata"]["usage"]["output_tokens"] == 1
    assert manifest["metadata"]["echo"] == {"model": "echo-small"}
    assert "+Say hello to the docs" in (task.output / "diff.patch").read_text()
    said = [e.get("text") for e in result.events if e["type"] == "message"]
    assert said == ["Echoed: Say hello to the docs"], said  # serve mode's output_text


def test_the_example_adapter_fails_fast_without_its_credential(tmp_path, assert_valid_manifest):
    task = make_task(tmp_path, goal="Say hello")
    result = run_agent(task, engine="echo", env=PLUGIN)
    assert result.exit_code == 1
    manifest = assert_valid_manifest(result.manifest)
    assert manifest["metadata"]["reason"] == "missing_credentials"
    assert "ECHO_API_KEY" in manifest["error"]


def test_the_docs_conformance_command_certifies_the_example(tmp_path):
    """The page's conformance command, exactly as printed, run against the example adapter
    (loaded by import path instead of installed): the real holon-agent drives the toy engine
    through the scripted model server, and the verdict is CONFORMANT with no warning."""
    page = (ROOT / "docs" / "writing-an-adapter.md").read_text(encoding="utf-8")
    found = re.search(r"```sh\n(pytest --holon-adapter echo [^\n]*)\n```", page)
    assert found, "the page no longer shows the conformance command"
    argv = shlex.split(found.group(1))
    done = subprocess.run(
        [sys.executable, "-m", *argv],
        cwd=tmp_path,
        env={**os.environ, **PLUGIN},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-4000:]
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    (echo,) = report["adapters"]
    assert (echo["name"], echo["model_api"]) == ("echo", "anthropic-messages")
    not_passed = {
        r["id"]: r["outcome"] for r in echo["results"] if r["outcome"] in ("FAIL", "WARN")
    }
    assert not not_passed, not_passed
    assert echo["verdict"] == "CONFORMANT"
