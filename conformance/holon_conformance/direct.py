"""Run a bare engine CLI (no holon adapter) against a scripted provider.

``run_direct`` kills the whole process group on timeout; it is for tests and benchmarks.

These are the measured recipes of engines.md section 2, kept in one place so the tests and
the benchmark drive each CLI exactly the same way: a throwaway HOME with its own TMPDIR and
config home, the endpoint and a fake key, retries capped, stdin closed.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    from holon_conformance.provider.server import ScriptedProvider

ENGINES = ("claude", "codex", "gemini")
#: Catalog model for Codex: it decides the tool set (``apply_patch`` needs a known model).
CODEX_MODEL = "gpt-5.5"
GEMINI_MODEL = "gemini-2.5-flash"

_GEMINI_SETTINGS = {
    "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}},
    "privacy": {"usageStatisticsEnabled": False},
    "general": {"maxAttempts": 1, "enableAutoUpdate": False, "enableAutoUpdateNotification": False},
}


@dataclass(frozen=True, slots=True)
class DirectLaunch:
    argv: list[str]
    env: dict[str, str]


def native_skill_dir(engine: str, home: Path) -> Path:
    """Where ``engine`` discovers user skills inside a run-local home (engines.md section 7)."""
    if engine == "claude":
        return home / ".claude" / "skills"
    if engine == "codex":
        return home / ".codex" / "skills"
    return home / ".gemini" / "skills"


def prepare_home(engine: str, home: Path) -> None:
    """Create the config home the CLI insists on (CODEX_HOME must exist, Gemini settings)."""
    (home / "tmp").mkdir(parents=True, exist_ok=True)
    if engine == "claude":
        (home / ".claude").mkdir(exist_ok=True)
    elif engine == "codex":
        (home / ".codex").mkdir(exist_ok=True)
    else:
        gemini = home / ".gemini"
        gemini.mkdir(exist_ok=True)
        (gemini / "settings.json").write_text(json.dumps(_GEMINI_SETTINGS, indent=2), "utf-8")


def codex_provider_args(url: str, retries: int = 0) -> list[str]:
    """``-c`` options that send Codex to ``url``: it ignores ``OPENAI_BASE_URL`` (0.169.0).

    Retries are capped here because Codex retries 5xx and stream errors many times by default.
    """
    table = (
        f'{{name="scripted",base_url="{url}/v1",env_key="OPENAI_API_KEY",'
        f'wire_api="responses",request_max_retries={retries},stream_max_retries={retries}}}'
    )
    return ["-c", f"model_providers.scripted={table}", "-c", "model_provider=scripted"]


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
    prepare_home(engine, home)
    env = {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": str(home),
        "TMPDIR": str(home / "tmp"),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
    }
    if engine == "claude":
        env.update(provider.engine_env("claude"))
        env.update(
            IS_SANDBOX="1",
            CLAUDE_CONFIG_DIR=str(home / ".claude"),
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
            CLAUDE_CODE_MAX_RETRIES=str(retries),
        )
        argv = [str(binary), "-p", prompt, "--output-format", "stream-json", "--verbose"]
        argv.append("--dangerously-skip-permissions")
        return DirectLaunch(argv, env)
    if engine == "codex":
        env.update(
            CODEX_HOME=str(home / ".codex"),
            OPENAI_API_KEY=provider.engine_env("codex")["OPENAI_API_KEY"],
        )
        argv = [str(binary), "exec", "--json", "--skip-git-repo-check"]
        argv += ["--dangerously-bypass-approvals-and-sandbox"]
        argv += ["--disable", "plugins", "--disable", "remote_plugin", "--disable", "apps"]
        argv += ["-c", "analytics.enabled=false", *codex_provider_args(provider.url, retries)]
        argv += ["-m", CODEX_MODEL, prompt]
        return DirectLaunch(argv, env)
    if engine == "gemini":
        env.update(provider.engine_env("gemini"))
        env.update(GEMINI_CLI_HOME=str(home), GEMINI_CLI_NO_RELAUNCH="1")
        argv = [str(binary), "-p", prompt, "--output-format", "stream-json", "--yolo"]
        argv += ["-m", GEMINI_MODEL]
        return DirectLaunch(argv, env)
    raise ValueError(f"unknown engine {engine!r}")


#: Generous wall-clock cap: a scripted run takes ~1-2 s; the first codex run can take ~30 s.
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
