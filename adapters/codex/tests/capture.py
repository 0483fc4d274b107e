"""Record real ``codex exec --json`` streams for the parser tests (run by hand, not by pytest).

    uv run --frozen --no-sync python adapters/codex/tests/capture.py

Runs the pinned CLI bare (the adapter's own flags and config, no holon-agent) against the
scripted provider and writes ``data/<scenario>.jsonl`` with stdout exactly as printed.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

from holon_adapter_codex.home import prepare_home
from holon_adapter_codex.launch import DEFAULT_MODEL
from holon_conformance.provider import ScriptedProvider

from holon_core.engine.binaries import find_engine_binary

DATA = Path(__file__).with_name("data")
SCENARIOS = ("write-and-run", "auth-401", "server-500", "use-skill")


def bare_run(binary: Path, env_extra: dict[str, str], timeout: float) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        home, workspace = root / "home", root / "ws"
        workspace.mkdir()
        codex_home = prepare_home(
            home, home / "tmp", env_extra, instructions="", request_retries=1, stream_retries=1
        )
        skill = codex_home / "skills" / "probe-skill"
        skill.mkdir(parents=True)
        (skill / "SKILL.md").write_text(
            "---\nname: probe-skill\ndescription: Probe skill.\n---\nSay PROBE.\n", "utf-8"
        )
        env = {"PATH": os.environ["PATH"], "HOME": str(home), "TMPDIR": str(home / "tmp")}
        env.update({"LANG": "C.UTF-8", "TERM": "dumb", "CODEX_HOME": str(codex_home)})
        env.update(env_extra)
        argv = [str(binary), "exec", "--json", "--skip-git-repo-check"]
        argv += ["--dangerously-bypass-approvals-and-sandbox", "-m", DEFAULT_MODEL]
        argv += ["-C", str(workspace), "Create hello.txt"]
        try:
            done = subprocess.run(
                argv,
                env=env,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=timeout,
                check=False,
            )
            return done.stdout.decode()
        except subprocess.TimeoutExpired as stopped:
            return (stopped.stdout or b"").decode()


def main() -> int:
    binary = find_engine_binary("codex", "HOLON_CODEX_BIN")
    if binary is None:
        print("codex is not installed", file=sys.stderr)
        return 1
    DATA.mkdir(exist_ok=True)
    for name in SCENARIOS:
        with ScriptedProvider(name) as server:
            text = bare_run(binary, server.engine_env("codex"), 30)
        (DATA / f"{name}.jsonl").write_text(text, encoding="utf-8")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    unreachable = {"OPENAI_BASE_URL": f"http://127.0.0.1:{port}/v1", "OPENAI_API_KEY": "sk-x"}
    text = bare_run(binary, unreachable, 7)
    (DATA / "unreachable.jsonl").write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
