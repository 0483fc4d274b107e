"""A GitHub world on 127.0.0.1 for the solve tests: the fake REST server, a bare repository as
``origin`` (the push remote) and a clone of it as the workspace; ``holon solve`` run as a user
runs it (a subprocess of the real CLI, the real holon-agent and engine behind it)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from holon_core.testing.github import FakeGitHub

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "skills" / "github-solve" / "scripts"
REPO = "acme/widgets"
TOKEN = "ghs_testtoken_0123456789abcdef"


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout.strip()


@dataclass
class Solved:
    code: int
    stdout: str
    stderr: str
    result: dict[str, Any] = field(default_factory=dict)

    @property
    def output(self) -> Path:
        return Path(self.result["paths"]["output_dir"])

    def read(self, name: str) -> Any:
        return json.loads((self.output / name).read_text())


@dataclass
class World:
    tmp: Path
    gh: FakeGitHub
    bare: Path
    workspace: Path
    pushes: Path

    def env(self, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "HOLON_"))}
        env |= {
            "GITHUB_TOKEN": TOKEN,
            "GITHUB_API_URL": self.gh.url,
            "HOLON_RUNS_DIR": str(self.tmp / "runs"),
            "HOLON_ENGINES_DIR": os.environ.get("HOLON_ENGINES_DIR", ""),
        }
        env = {k: v for k, v in env.items() if v}
        env.update(extra)
        return env

    def solve(self, *args: str, env: dict[str, str] | None = None, timeout: float = 240) -> Solved:
        argv = [sys.executable, "-m", "holon_core", "solve", *args, "--json", "--quiet"]
        argv += ["--workspace", str(self.workspace)]
        done = subprocess.run(
            argv,
            env=env or self.env(),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        try:
            result = json.loads(done.stdout)
        except ValueError:
            result = {}
        return Solved(done.returncode, done.stdout, done.stderr, result)

    def branches(self) -> list[str]:
        out = git(self.bare, "for-each-ref", "--format=%(refname:short)", "refs/heads")
        return sorted(out.split())

    def push_count(self) -> int:
        return len(self.pushes.read_text().splitlines()) if self.pushes.exists() else 0


def make_world(tmp: Path, gh: FakeGitHub) -> World:
    """``origin`` = ``tmp/remotes/acme/widgets.git`` with main; the workspace is its clone."""
    bare = tmp / "remotes" / "acme" / "widgets.git"
    bare.parent.mkdir(parents=True)
    git(tmp, "init", "-q", "--bare", "-b", "main", str(bare))
    pushes = tmp / "pushes.log"
    hook = bare / "hooks" / "post-receive"
    hook.write_text(f"#!/bin/sh\ncat >> {pushes}\n")
    hook.chmod(0o755)
    seed = tmp / "seed"
    seed.mkdir()
    git(seed, "init", "-q", "-b", "main")
    (seed / "widget.py").write_text("def spin():\n    return 1 / 0\n")
    git(seed, "add", "-A")
    git(seed, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init")
    git(seed, "push", "-q", str(bare), "main")
    pushes.unlink()  # the seed push is not the skill's
    workspace = tmp / "ws"
    git(tmp, "clone", "-q", str(bare), str(workspace))
    gh.repo(REPO, git_dir=bare)
    return World(tmp, gh, bare, workspace, pushes)
