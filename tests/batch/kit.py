"""Jobs for the ``holon batch`` tests: real task dirs, real git, ``holon batch`` as a process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml
from holon_conformance.provider import ScriptedProvider

GIT_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
}

#: The replay engine's script: what the scripted model server makes claude and codex do.
REPLAY_STEPS: list[dict[str, Any]] = [
    {"write": {"path": "hello.txt", "content": "hello from holon\n"}},
    {"run": "cat hello.txt"},
    {"say": "Created hello.txt and checked its content."},
]
GOAL = "Create hello.txt with the line 'hello from holon', then show its content."
#: The write-and-run scenario behind one HTTP 429 per engine: the first claude run is rate
#: limited (its own retries are off), and the batch must try it again.
SCENARIO_429 = {
    "description": "One HTTP 429, then write-and-run.",
    "turns": [
        {"error": {"status": 429, "message": "rate limited (scripted)"}, "times": 1},
        {
            "say": "I will create hello.txt.",
            "write_file": {"path": "hello.txt", "content": "hello from holon\n"},
        },
        {"run_shell": {"command": "cat hello.txt"}},
        {"final": {"text": "Created hello.txt and checked its content."}},
    ],
}


def git(cwd: Path, *args: str) -> None:
    env = {"PATH": os.environ["PATH"], "HOME": "/nonexistent", **GIT_ENV}
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr


def write(root: Path, rel: str, content: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content, encoding="utf-8")


def spec_data(name: str) -> dict[str, Any]:
    return {"version": "v1", "kind": "Holon", "metadata": {"name": name}, "goal": GOAL}


def context_dir(root: Path, steps: Sequence[dict[str, Any]] = REPLAY_STEPS) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "replay.yaml").write_text(yaml.safe_dump(list(steps)), encoding="utf-8")
    return root


def four_tasks(root: Path, steps: Sequence[dict[str, Any]] = REPLAY_STEPS) -> list[dict[str, Any]]:
    """Four tasks, one of each kind the job file takes: a spec file beside its context, an
    inline spec, a git URL at a ref, and a dirty git repo."""
    one = root / "one"
    (one / "spec.yaml").parent.mkdir(parents=True)
    (one / "spec.yaml").write_text(yaml.safe_dump(spec_data("one")), encoding="utf-8")
    context_dir(one / "context", steps)
    write(root / "ws-plain", "README.md", "plain workspace\n")
    context_dir(root / "shared-context", steps)
    origin = root / "origin"
    write(origin, "README.md", "from git\n")
    git(origin, "init", "-q", "-b", "main")
    git(origin, "add", "-A")
    git(origin, "commit", "-q", "-m", "first")
    git(origin, "tag", "v1")
    write(origin, "README.md", "after the tag\n")
    git(origin, "commit", "-q", "-am", "second")
    dirty = root / "ws-dirty"
    write(dirty, "src/app.py", "print('app')\n")
    git(dirty, "init", "-q", "-b", "main")
    git(dirty, "add", "-A")
    git(dirty, "commit", "-q", "-m", "first")
    write(dirty, "src/app.py", "print('dirty')\n")
    shared, url = "shared-context", f"file://{origin}"
    return [
        {"id": "one", "spec": "one/spec.yaml", "workspace": "ws-plain"},
        {"id": "inline", "spec": spec_data("inline"), "workspace": "ws-plain", "context": shared},
        {"id": "cloned", "spec": "one/spec.yaml", "workspace": {"git": url, "ref": "v1"},
         "context": shared},
        {"id": "dirty", "spec": "one/spec.yaml", "workspace": "ws-dirty"},
    ]  # fmt: skip


def write_job(root: Path, tasks: list[dict[str, Any]], engines: list[str], **extra: Any) -> Path:
    job = {"tasks": tasks, "matrix": {"engines": engines}, **extra}
    path = root / "job.yaml"
    path.write_text(yaml.safe_dump(job, sort_keys=False), encoding="utf-8")
    return path


def batch_argv(job: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "holon_core", "batch", str(job), *args]


def run_batch(
    job: Path, *args: str, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        batch_argv(job, *args),
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        check=False,
        timeout=900,
    )


def results(results_dir: Path) -> list[dict[str, Any]]:
    text = (results_dir / "results.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def table(rows: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """What must match between executors and between a resumed and a whole job."""
    return [(r["cell"], r["outcome"], r["reason"], r["files_changed"]) for r in rows]


def manifest(row: dict[str, Any]) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(
        (Path(row["run_dir"]) / "output" / "manifest.json").read_text()
    )
    return data


ENGINES = ["replay", "claude", "codex"]
#: Every cell of the 12-cell job succeeds and changes one file (hello.txt).
EXPECTED = [
    (f"{task}.{engine}.1", "success", "ok", 1)
    for task in ("one", "inline", "cloned", "dirty")
    for engine in ENGINES
]


def provider_env(provider: ScriptedProvider) -> dict[str, str]:
    return {
        **provider.engine_env("claude"),
        **provider.engine_env("codex"),
        "HOLON_CLAUDE_MAX_RETRIES": "0",  # the 429 ends the first claude run: batch retries it
    }


def scenario_429(tmp: Path) -> Path:
    path = tmp / "scenario-429.yaml"
    path.write_text(yaml.safe_dump(SCENARIO_429), encoding="utf-8")
    return path


def replay_tasks(root: Path, count: int, steps: list[dict[str, object]]) -> list[dict[str, object]]:
    context_dir(root / "context", steps)
    write(root / "ws", "README.md", "hi\n")
    return [
        {"id": f"t{i}", "spec": spec_data(f"t{i}"), "workspace": "ws", "context": "context"}
        for i in range(count)
    ]
