"""Regenerate ``tests/data/*.jsonl``: stdout of the bare pinned Gemini CLI per scenario.

Run ``uv run --frozen --no-sync python adapters/gemini/tests/capture.py``. Each file ends
with a ``{"exit_code": N}`` line that the parser tests hand to ``finish``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from holon_conformance.direct import direct_launch, native_skill_dir
from holon_conformance.provider import ScriptedProvider

from holon_core.engine.binaries import find_engine_binary

DATA = Path(__file__).parent / "data"
SCENARIOS = {
    "write_and_run": "write-and-run",
    "auth_401": "auth-401",
    "server_500": "server-500",
    "use_skill": "use-skill",
    "final_only": "final-only",
    "loop_detected": "max-turns",
    "all_commands_fail": "all-commands-fail",
}
#: Scenarios whose session log is kept too (``<name>.session.jsonl``): exit codes live there.
SESSION_LOGS = {"all_commands_fail", "refused"}
RATE_429 = {
    "turns": [{"error": {"status": 429, "message": "quota (scripted)"}, "times": "forever"}]
}
TOOL_FAILS = {
    "turns": [
        {
            "tool": {
                "gemini": {
                    "name": "write_file",
                    "args": {"file_path": "/outside/x.txt", "content": "x"},
                }
            }
        },
        {"final": {"text": "Could not write."}},
    ]
}
#: Shell calls the CLI refuses or cuts off (see ``refusals.py``), then one it runs whose output
#: only looks like a refusal; a home policy denies ``whoami``, a 1 s inactivity timeout.
REFUSED = {
    "turns": [
        {"run_shell": {"command": "echo $(date)"}},
        {"run_shell": {"command": "echo `date` <(true)"}},
        {
            "tool": {
                "gemini": {
                    "name": "run_shell_command",
                    "args": {"command": "ls", "dir_path": "/etc"},
                }
            }
        },
        {"run_shell": {"command": "whoami"}},
        {"run_shell": {"command": "sleep 3"}},
        {
            "run_shell": {
                "command": "echo 'Blocked: command substitution detected in shell command.'"
            }
        },
        {"final": {"text": "Done, all good."}},
    ]
}
REFUSED_POLICY = (
    '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "whoami"\ndecision = "deny"\n'
    'priority = 900\ndenyMessage = "No whoami here."\n'
)
SKILL = "---\nname: probe-skill\ndescription: Probe skill for tests.\n---\nSay probe.\n"


def capture(name: str, scenario: object, binary: Path) -> None:
    from holon_conformance.provider import parse_scenario

    loaded = parse_scenario(scenario, name) if isinstance(scenario, dict) else scenario
    root = Path(tempfile.mkdtemp(prefix="gemini-capture-"))
    try:
        workspace = root / "ws"
        workspace.mkdir()
        with ScriptedProvider(loaded) as provider:  # type: ignore[arg-type]
            launch = direct_launch("gemini", binary, "Create hello.txt", root / "home", provider)
            if name == "refused":
                refusing_home(root / "home")
            skill = native_skill_dir("gemini", root / "home") / "probe-skill"
            skill.mkdir(parents=True)
            (skill / "SKILL.md").write_text(SKILL, encoding="utf-8")
            done = subprocess.run(
                launch.argv,
                env=launch.env,
                cwd=workspace,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
        text = done.stdout.replace(str(root), "/run")
        (DATA / f"{name}.jsonl").write_text(
            text + json.dumps({"exit_code": done.returncode}) + "\n", encoding="utf-8"
        )
        if name in SESSION_LOGS:
            (log,) = (root / "home" / ".gemini" / "tmp").glob("*/chats/session-*.jsonl")
            session = log.read_text(encoding="utf-8").replace(str(root), "/run")
            (DATA / f"{name}.session.jsonl").write_text(session, encoding="utf-8")
        print(name, done.returncode)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def refusing_home(home: Path) -> None:
    """The REFUSED capture's home: a policy denying ``whoami``, a 1 s shell inactivity limit."""
    (home / ".gemini" / "policies").mkdir(parents=True)
    (home / ".gemini" / "policies" / "deny.toml").write_text(REFUSED_POLICY, encoding="utf-8")
    settings_file = home / ".gemini" / "settings.json"
    settings = json.loads(settings_file.read_text(encoding="utf-8"))
    settings["tools"] = {"shell": {"inactivityTimeout": 1}}
    settings_file.write_text(json.dumps(settings), encoding="utf-8")


def main() -> int:
    binary = find_engine_binary("gemini", "HOLON_GEMINI_BIN")
    if binary is None:
        print("gemini not found; run `holon engines install gemini`", file=sys.stderr)
        return 1
    DATA.mkdir(exist_ok=True)
    for name, scenario in SCENARIOS.items():
        capture(name, scenario, binary)
    capture("rate_429", RATE_429, binary)
    capture("tool_fails", TOOL_FAILS, binary)
    capture("refused", REFUSED, binary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
