"""Run a bare engine CLI (no holon adapter) against a scripted provider.

``run_direct`` kills the whole process group on timeout; it is for tests and benchmarks.

Each engine's recipe (engines.md section 2) ships with its adapter, as a ``bare`` module
next to the adapter class (``bare_launch`` and ``SKILL_DIR``), so the tests and the
benchmarks drive each CLI exactly the same way and a new engine needs no edit here. The
common part lives here: a throwaway HOME with its own TMPDIR, the adapter's endpoint
variables, retries capped, stdin closed.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from holon_conformance.provider.apis import installed_adapters

if TYPE_CHECKING:
    from holon_conformance.provider.server import ScriptedProvider


def _recipe_module(engine: str) -> str:
    package = type(installed_adapters().get_engine(engine)).__module__.partition(".")[0]
    return f"{package}.bare"


def _has_recipe(engine: str) -> bool:
    try:
        return importlib.util.find_spec(_recipe_module(engine)) is not None
    except ImportError:
        return False


def _recipe(engine: str) -> Any:
    if not _has_recipe(engine):
        raise ValueError(
            f"adapter {engine!r} ships no bare-CLI recipe ({_recipe_module(engine)}); "
            f"engines with one: {', '.join(ENGINES) or 'none'}"
        )
    return importlib.import_module(_recipe_module(engine))


#: The installed engines whose adapter ships a bare-CLI recipe, in entry-point order.
ENGINES = tuple(name for name in installed_adapters().engine_names() if _has_recipe(name))


@dataclass(frozen=True, slots=True)
class DirectLaunch:
    argv: list[str]
    env: dict[str, str]


def native_skill_dir(engine: str, home: Path) -> Path:
    """Where ``engine`` discovers user skills inside a run-local home (engines.md section 7)."""
    return home / str(_recipe(engine).SKILL_DIR)


def direct_launch(
    engine: str,
    binary: Path,
    prompt: str,
    home: Path,
    provider: ScriptedProvider,
    *,
    retries: int = 0,
) -> DirectLaunch:
    """argv and a complete environment (``env -i`` style) for one headless run."""
    (home / "tmp").mkdir(parents=True, exist_ok=True)
    env = {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": str(home),
        "TMPDIR": str(home / "tmp"),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
    }
    endpoint = provider.engine_env(engine)
    argv, extra = _recipe(engine).bare_launch(str(binary), prompt, home, endpoint, retries)
    return DirectLaunch(list(argv), {**env, **extra})


#: Generous wall-clock cap: a scripted run takes ~1-2 s; a CLI's first run can take ~30 s.
TIMEOUT = 120


@dataclass
class DirectRun:
    returncode: int
    stdout: str
    stderr: str
    workspace: Path
    home: Path


def run_direct(
    engine: str,
    binary: Path,
    provider: ScriptedProvider,
    *,
    workspace: Path,
    home: Path,
    prompt: str,
    retries: int = 0,
    timeout: float = TIMEOUT,
) -> DirectRun:
    """One headless run with engines.md section 2's command; the whole group dies on timeout."""
    launch = direct_launch(engine, binary, prompt, home, provider, retries=retries)
    proc = subprocess.Popen(
        launch.argv,
        env=launch.env,
        cwd=workspace,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        raise AssertionError(
            f"{engine} did not finish within {TIMEOUT} s:\n{err[-2000:]}"
        ) from None
    return DirectRun(proc.returncode, out, err, workspace, home)
