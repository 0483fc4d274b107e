"""action.yml's own scripts, run the way a runner runs the composite action: the install step
(holon-core from an index at the action's version, read from pyproject.toml, into a venv put
on GITHUB_PATH) against a local index of the built wheel and the locked wheels, then the run
step from that venv with the inputs wired as action.yml wires them."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from holon_core._version import __version__
from tests.oracles import ROOT
from tests.runner.kit import git, write_task

from .runner import parse_outputs, runner_env

EXPRESSION = re.compile(r"\$\{\{\s*inputs\.([a-z-]+)\s*\}\}")


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory, uv_binary: str, wheelhouse: Path) -> str:
    """pip's find-links for an offline install: holon-core's wheel, built now, and the locks."""
    out = tmp_path_factory.mktemp("dist")
    argv = [uv_binary, "build", "--offline", "-q", "--package", "holon-core", "--wheel"]
    done = subprocess.run(
        [*argv, "--out-dir", str(out)], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return f"{out} {wheelhouse}"


def composite_step(step: dict[str, Any], inputs: dict[str, str], env: dict[str, str]) -> str:
    """Run one step's script with bash, its env's ``${{ inputs.X }}`` filled in."""
    step_env = {
        k: EXPRESSION.sub(lambda m: inputs[m.group(1)], str(v)) for k, v in step["env"].items()
    }
    done = subprocess.run(
        ["bash", "-e", "-c", step["run"]],
        env=env | step_env,
        cwd=env["GITHUB_WORKSPACE"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    return f"{done.returncode}\n{done.stdout}\n{done.stderr}"


def _runner(tmp_path: Path, find_links: str) -> dict[str, str]:
    """What setup-python leaves (``python`` on PATH) and a runner's files, pip offline."""
    workspace = tmp_path / "repo"
    workspace.mkdir()
    (workspace / "README.md").write_text("hi\n")
    git(workspace, "init", "-q", "-b", "main")
    git(workspace, "add", "-A")
    git(workspace, "commit", "-q", "-m", "initial")
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "python").symlink_to(sys.executable)
    return runner_env(tmp_path, workspace) | {
        "PATH": f"{tools}:{os.environ['PATH']}",
        "GITHUB_ACTION_PATH": str(ROOT),
        "GITHUB_PATH": str(tmp_path / "runner" / "path"),
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": find_links,
        "PIP_CACHE_DIR": str(tmp_path / "pip-cache"),
    }


def _inputs(meta: dict[str, Any], **given: str) -> dict[str, str]:
    inputs = {name: str(i.get("default", "")) for name, i in meta["inputs"].items()}
    return inputs | {k.replace("_", "-"): v for k, v in given.items()}


def test_an_unpublished_version_is_installed_from_the_actions_checkout(tmp_path, wheelhouse):
    """``uses: owner/holon@ref`` before holon is on the package index: an index with every
    dependency (and the build backend) but no holon; the install step builds holon-core and
    the engine's adapter from the action's own checkout."""
    meta = yaml.safe_load((ROOT / "action.yml").read_text())
    env = _runner(tmp_path, str(wheelhouse))
    steps = {s.get("name"): s for s in meta["runs"]["steps"]}
    installed = composite_step(
        steps["Install holon and the engine"], _inputs(meta, engine="acp"), env
    )
    assert installed.startswith("0\n"), installed
    assert f"holon-core {__version__} is not on the package index" in installed, installed
    venv_bin = Path(env["RUNNER_TEMP"]) / "holon-venv" / "bin"
    engines = subprocess.run(
        [venv_bin / "holon", "engines", "list", "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert '"acp-claude"' in engines.stdout, engines.stdout + engines.stderr
    # A version asked for by name is not swapped for the checkout's code.
    (Path(env["RUNNER_TEMP"]) / "holon-venv").rename(tmp_path / "first-venv")
    pinned = _inputs(meta, engine="replay", holon_version="9.9.9")
    refused = composite_step(steps["Install holon and the engine"], pinned, env)
    assert refused.startswith("1\n"), refused
    assert "cannot install holon-core==9.9.9 from the package index" in refused, refused


def test_the_composite_steps_install_holon_and_run_the_task(tmp_path, index):
    meta = yaml.safe_load((ROOT / "action.yml").read_text())
    spec = write_task(tmp_path / "task", [{"write": {"path": "a.txt", "content": "a\n"}}])
    inputs = _inputs(meta, engine="replay", spec=str(spec), github_token="")
    env = _runner(tmp_path, index)
    steps = {s.get("name"): s for s in meta["runs"]["steps"]}
    installed = composite_step(steps["Install holon and the engine"], inputs, env)
    assert installed.startswith("0\n"), installed
    venv_bin = Path(env["RUNNER_TEMP"]) / "holon-venv" / "bin"
    assert Path(env["GITHUB_PATH"]).read_text().splitlines() == [str(venv_bin)]
    version = subprocess.run(
        [venv_bin / "holon", "--version"], capture_output=True, text=True, check=True
    )
    assert version.stdout.strip() == f"holon {__version__}"
    env["PATH"] = f"{venv_bin}:{env['PATH']}"
    ran = composite_step(steps["Run holon"], inputs, env)
    assert ran.startswith("0\n"), ran
    outputs = parse_outputs(Path(env["GITHUB_OUTPUT"]).read_text())
    assert outputs["outcome"] == "success" and outputs["files-changed"] == "1"
    assert Path(outputs["report"]).is_file()
    assert "## ✅ holon: success (ok)" in Path(env["GITHUB_STEP_SUMMARY"]).read_text()
