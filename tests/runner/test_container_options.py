"""``holon run --container``'s options and command line, without a runtime (the runs
themselves are proven in the image by ``container/tests``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from holon_core.runner.container import Container, ContainerOptions, default_network
from holon_core.runner.layout import RunLayout

SPEC = Path(__file__).resolve().parents[2] / "examples" / "hello" / "spec.yaml"


def holon(*args: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "holon_core", "run", str(SPEC), *args]
    return subprocess.run(argv, capture_output=True, text=True, check=False)


def test_limits_without_container_and_bad_limits_are_usage_errors() -> None:
    alone = holon("--memory", "2g")
    assert alone.returncode == 1
    assert "--memory needs --container" in alone.stderr
    bad = holon("--container", "--cpus", "lots")
    assert bad.returncode == 1
    assert "--cpus 'lots' is not a positive number" in bad.stderr


def test_network_default_follows_the_engine() -> None:
    local = {"ANTHROPIC_BASE_URL": "http://127.0.0.1:8080", "KEY": "x"}
    assert default_network("replay", ["ANTHROPIC_BASE_URL"], local) == "none"
    assert default_network("claude", ["KEY", "ANTHROPIC_BASE_URL"], local) == "host"
    remote = {"ANTHROPIC_BASE_URL": "https://gateway.example.com"}
    assert default_network("claude", ["ANTHROPIC_BASE_URL"], remote) == "bridge"


def test_command_mounts_only_the_run_dirs_and_passes_secrets_by_name(tmp_path: Path) -> None:
    layout = RunLayout("run-1", tmp_path / "run", tmp_path / "out")
    container = Container("podman", "img:1", "holon-run-1", "none", ContainerOptions(memory="1g"))
    flags = ["--input", str(layout.input), "--skill", str(layout.input / "skills" / "a")]
    settings = {"HOLON_TIMEOUT": "60", "HOLON_CLAUDE_BIN": "/host/claude", "PATH": "/x"}
    argv = container.command(layout, flags, settings, ["ANTHROPIC_API_KEY"])
    volumes = [argv[i + 1] for i, word in enumerate(argv) if word == "--volume"]
    assert volumes == [
        f"{layout.input}:/holon/input:ro",
        f"{layout.snapshot}:/holon/workspace:rw",
        f"{layout.output}:/holon/output:rw",
        f"{layout.state}:/holon/state:rw",
    ]
    envs = [argv[i + 1] for i, word in enumerate(argv) if word == "--env"]
    assert "HOLON_TIMEOUT=60" in envs and "ANTHROPIC_API_KEY" in envs
    assert not any(e.startswith(("HOLON_CLAUDE_BIN", "PATH")) for e in envs)
    assert argv[argv.index("img:1") + 1 :] == [
        "--input",
        "/holon/input",
        "--skill",
        "/holon/input/skills/a",
    ]
    assert argv[argv.index("--network") : argv.index("--network") + 2] == ["--network", "none"]
    assert "--read-only" in argv and "1g" in argv


def test_network_default_lets_the_traces_reach_their_collector() -> None:
    """The run exports its spans from inside the container: a collector on this host's
    loopback needs the host's network, as a local model endpoint does; a remote one needs a
    network even for replay."""
    local = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}
    assert default_network("replay", [], local) == "host"
    traces = {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://localhost:4318/v1/traces"}
    assert default_network("claude", [], {**traces, "ANTHROPIC_BASE_URL": "https://x"}) == "host"
    remote = {"OTEL_EXPORTER_OTLP_ENDPOINT": "https://otlp.example.com"}
    assert default_network("replay", [], remote) == "bridge"
    assert default_network("replay", [], {**local, "OTEL_SDK_DISABLED": "true"}) == "none"
    assert default_network("replay", [], {**local, "OTEL_TRACES_EXPORTER": "console"}) == "none"


def test_command_passes_the_telemetry_settings_by_name(tmp_path: Path) -> None:
    """OTEL_* (the headers may hold a key) and the W3C trace context cross by name; the
    exporter's certificate and client key files are host paths and stay out."""
    layout = RunLayout("run-1", tmp_path / "run", tmp_path / "out")
    container = Container("podman", "img:1", "holon-run-1", "host", ContainerOptions())
    settings = {
        "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318",
        "OTEL_EXPORTER_OTLP_HEADERS": "authorization=Bearer sekrit",
        "OTEL_SERVICE_NAME": "ci",
        "OTEL_EXPORTER_OTLP_CERTIFICATE": "/host/ca.pem",
        "OTEL_EXPORTER_OTLP_TRACES_CLIENT_KEY": "/host/key.pem",
        "TRACEPARENT": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
        "TRACESTATE": "ci=1",
    }
    argv = container.command(layout, [], settings, [])
    envs = [argv[i + 1] for i, word in enumerate(argv) if word == "--env"]
    crossed = ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_HEADERS", "OTEL_SERVICE_NAME"]
    assert set(crossed) | {"TRACEPARENT", "TRACESTATE"} <= set(envs)
    assert not any("CERTIFICATE" in e or "CLIENT_KEY" in e for e in envs)
    assert "sekrit" not in " ".join(argv)


FAKE_RUNTIME = """#!/bin/sh
printf '%s %s\\n' "$1" "$PATH" >> "$(dirname "$0")/calls.log"
exit 0
"""


def test_the_runtime_gets_the_sbin_dirs_the_callers_path_lacks(tmp_path: Path) -> None:
    """podman's netavark runs iptables from /usr/sbin: a caller's PATH without it (a CI job,
    a cron line) broke every --container run with a network. The runtime (a stand-in here
    that records how it was called) gets them added; the user's own PATH stays first."""
    runtime = tmp_path / "bin" / "podman"
    runtime.parent.mkdir()
    runtime.write_text(FAKE_RUNTIME)
    runtime.chmod(0o755)
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "HOLON_CONTAINER_RUNTIME": str(runtime),
        "HOLON_RUNS_DIR": str(tmp_path / "runs"),
    }
    workspace = tmp_path / "ws"
    workspace.mkdir()
    argv = [sys.executable, "-m", "holon_core", "run", str(SPEC), "--container", "img:1"]
    argv += ["--workspace", str(workspace), "--engine", "replay", "--quiet"]
    subprocess.run(argv, env=env, capture_output=True, text=True, check=False, timeout=120)
    calls = dict(
        line.split(" ", 1) for line in (runtime.parent / "calls.log").read_text().splitlines()
    )
    assert set(calls) >= {"image", "run", "rm"}, calls
    for command, path in calls.items():
        assert path.strip().split(":") == ["/usr/bin", "/bin", "/usr/sbin", "/sbin"], command


def test_a_path_that_has_the_sbin_dirs_is_left_as_it_is() -> None:
    from holon_core.runner.container import runtime_env

    mine = {"PATH": "/sbin:/opt/bin:/usr/sbin", "X": "1"}
    assert runtime_env(mine) == mine
    assert runtime_env({})["PATH"].split(":")[-2:] == ["/usr/sbin", "/sbin"]
