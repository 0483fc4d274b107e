"""A replay that cannot be: refused before the engine starts, exit 1, ``invalid_input``, a
failure manifest naming the problem and the fix; bad flags are usage errors (exit 1)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from holon_core.testing import make_task, run_agent

from .replay_kit import record, replay_env


@pytest.fixture(scope="module")
def codex_cassette(engine_binary, https_provider_module, ca_file, tmp_path_factory):
    engine_binary("codex")
    server = https_provider_module("write-and-run")
    where = tmp_path_factory.mktemp("rec")
    target = where / "cassette"
    result = record("codex", server, ca_file, where, target)
    assert result.manifest is not None and result.manifest["outcome"] == "success"
    return target


@pytest.fixture(scope="module")
def https_provider_module(test_ca):
    import ssl

    from holon_conformance.provider import ScriptedProvider

    from tests.gateway.kit import REAL_KEY

    started = []

    def make(scenario: str):
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        test_ca.issue_cert("127.0.0.1").configure_cert(context)
        server = ScriptedProvider(scenario, ssl_context=context, api_key=REAL_KEY).start()
        started.append(server)
        return server

    yield make
    for server in started:
        server.stop()


def refused(result, *words: str) -> str:
    manifest = result.manifest
    assert result.exit_code == 1 and manifest is not None, result.stderr
    assert (manifest["outcome"], manifest["metadata"]["reason"]) == ("failure", "invalid_input")
    for word in words:
        assert word in manifest["error"], manifest["error"]
    assert "engine.stdout.log" not in " ".join(manifest["artifacts"])  # never launched
    return str(manifest["error"])


def agent(engine: str, tmp_path, *args: str, env: dict[str, str] | None = None):
    task = make_task(tmp_path / "task", files={"README.md": "hi\n"})
    settings = replay_env(engine, "http://127.0.0.1:9") | (env or {})
    return run_agent(task, engine, env=settings, args=list(args), timeout=120)


def test_a_directory_that_is_no_cassette(engine_binary, tmp_path):
    engine_binary("claude")
    result = agent("claude", tmp_path, "--cassette", str(tmp_path / "nothing"))
    refused(result, "no cassette", "--record")


def test_another_format_version(codex_cassette, tmp_path):
    copy = tmp_path / "old"
    shutil.copytree(codex_cassette, copy)
    info = json.loads((copy / "cassette.json").read_text())
    (copy / "cassette.json").write_text(json.dumps(info | {"version": 99}))
    refused(agent("codex", tmp_path, "--cassette", str(copy)), "version 99")


def test_a_cassette_of_another_engine(codex_cassette, engine_binary, tmp_path):
    engine_binary("claude")
    result = agent("claude", tmp_path, "--cassette", str(codex_cassette))
    refused(result, "recorded with engine codex", "--engine codex")


def test_the_gateway_off(codex_cassette, tmp_path):
    env = {"HOLON_GATEWAY": "off"}
    refused(agent("codex", tmp_path, "--cassette", str(codex_cassette), env=env), "no gateway")


def test_together_with_record(codex_cassette, tmp_path):
    args = ("--cassette", str(codex_cassette), "--record", str(tmp_path / "new"))
    refused(agent("codex", tmp_path, *args), "--record")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--cassette-mode", "loose"], "not a mode"),
        (["--cassette-mode", "lenient"], "needs --cassette"),
    ],
)
def test_holon_run_usage_errors(args, message, tmp_path):
    command = [sys.executable, "-m", "holon_core", "run", "--goal", "x"]
    done = subprocess.run(
        [*command, "--workspace", str(tmp_path), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1 and message in done.stderr, done.stderr
