"""``holon run --container`` against process mode, and the original workspace out of reach."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from conftest import IMAGE, ROOT
from holon_conformance.provider import ScriptedProvider, load_scenario

SPEC = ROOT / "examples" / "hello" / "spec.yaml"


def holon_run(
    tmp: Path,
    label: str,
    workspace: Path,
    engine: str,
    *extra: str,
    env: dict[str, str] | None = None,
) -> tuple[dict[str, Any], Path]:
    output = tmp / f"out-{label}"
    argv = [sys.executable, "-m", "holon_core", "run", str(SPEC), "--workspace", str(workspace)]
    argv += ["--engine", engine, "--output", str(output), "--runs-dir", str(tmp / "runs")]
    argv += ["--json", "--quiet", *extra]
    done = subprocess.run(
        argv, env={**os.environ, **(env or {})}, capture_output=True, text=True, check=False
    )
    assert done.stdout, done.stderr
    return json.loads(done.stdout), output


def same_record(
    process: tuple[dict[str, Any], Path], container: tuple[dict[str, Any], Path]
) -> None:
    """Same verdict, same patch, same manifest apart from times and paths."""
    (first, first_out), (second, second_out) = process, container
    for key in ("outcome", "reason", "exit_code", "valid", "files_changed", "problems"):
        assert first[key] == second[key], key
    patch = (first_out / "diff.patch").read_bytes()
    assert patch and patch == (second_out / "diff.patch").read_bytes()
    one = json.loads((first_out / "manifest.json").read_text())
    two = json.loads((second_out / "manifest.json").read_text())
    assert one["outcome"] == two["outcome"]
    assert one["metadata"]["reason"] == two["metadata"].get("reason")
    # process mode runs in holon's room and may record its proxy's attempts; the image runs
    # with HOLON_SANDBOX=off (docs/sandbox.md), so that record is the one expected difference
    room_only = {"evidence/network.ndjson"}
    assert sorted(set(one["artifacts"]) - room_only) == sorted(two["artifacts"])
    assert one["metadata"]["files_changed"] == two["metadata"]["files_changed"]


def test_replay_in_the_container_matches_process_mode(
    podman: str, hello: Path, tmp_path: Path
) -> None:
    process = holon_run(tmp_path, "process", hello, "replay")
    container = holon_run(tmp_path, "container", hello, "replay", "--container", IMAGE)
    assert process[0]["outcome"] == "success", process[0]
    same_record(process, container)
    # the container is removed afterwards
    left = subprocess.run(
        [podman, "ps", "-aq", "--filter", "name=holon-run"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert left.stdout.strip() == ""


def test_claude_in_the_container_matches_process_mode(
    podman: str, hello: Path, tmp_path: Path
) -> None:
    with ScriptedProvider(load_scenario("write-and-run")) as provider:
        env = provider.engine_env("claude")
        process = holon_run(tmp_path, "process", hello, "claude", env=env)
        served = len(provider.requests)
        container = holon_run(tmp_path, "container", hello, "claude", "--container", IMAGE, env=env)
        assert (
            len(provider.requests) > served
        )  # the engine in the container reached the host's server
    assert process[0]["outcome"] == "success", process[0]
    same_record(process, container)


def test_the_original_workspace_is_not_there_for_the_engine(
    podman: str, hello: Path, tmp_path: Path
) -> None:
    """An engine that tries to write to the original's path finds no such directory."""
    context = tmp_path / "context"
    context.mkdir()
    (context / "replay.yaml").write_text(
        f'- run: "test -d {hello} && echo REACHED || echo ABSENT"\n'
        f'- run: "touch {hello}/README.md {hello}/pwned; echo x > {hello}/pwned"\n'
        '- write: {path: hello.txt, content: "hello from holon\\n"}\n'
        "- say: done\n"
    )
    before = {p.name: p.stat().st_mtime_ns for p in hello.iterdir()}
    result, output = holon_run(
        tmp_path, "hostile", hello, "replay", "--context", str(context), "--container", IMAGE
    )
    assert result["reason"] != "workspace_modified", result
    assert {p.name: p.stat().st_mtime_ns for p in hello.iterdir()} == before
    assert not (hello / "pwned").exists()
    raw = (output / "evidence" / "engine.stdout.log").read_text()
    assert '"output": "ABSENT' in raw and '"output": "REACHED' not in raw
    assert "hello.txt" in (output / "diff.patch").read_text()
