"""The replay engine process: plays a script of steps in the workspace, no network.

Run as ``python -m holon_core.builtin.replay_engine SCRIPT PROMPT_FILE`` in the workspace. It prints
one JSON object per line (``init``, ``say``, ``tool``, ``result``), like the real engines'
stream modes, so the whole pipeline (supervisor, parser, diff, outcome) runs for real.

Script (YAML): a list of steps, or ``{steps: [...]}``. Steps:
``write: {path, content | base64, mode?}``, ``delete: PATH``, ``run: COMMAND``, ``say: TEXT``,
``sleep: SECONDS``, ``exit: CODE`` (stop at once, no result) and a final
``outcome: success|failure|needs_human``. ``{output}`` and ``{workspace}`` in strings are
replaced by the output and workspace directories. ``run`` commands see the prompt file as
``$HOLON_REPLAY_PROMPT_FILE`` (``cat`` it to show what the engine was asked).
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import yaml

STEP_KINDS = ("write", "delete", "run", "say", "sleep", "exit", "outcome")


def emit(**event: Any) -> None:
    sys.stdout.write(json.dumps(event) + "\n")
    sys.stdout.flush()


def load_script(path: Path) -> list[dict[str, Any]]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    steps = data.get("steps") if isinstance(data, dict) else data
    if not isinstance(steps, list):
        raise ValueError(f"{path}: expected a list of steps (or steps: [...])")
    for index, step in enumerate(steps):
        if not isinstance(step, dict) or len(step) != 1 or next(iter(step)) not in STEP_KINDS:
            raise ValueError(
                f"{path}: step {index + 1} must be one of {', '.join(STEP_KINDS)}, got {step!r}"
            )
    return steps


def _subst(text: str) -> str:
    return text.replace("{output}", os.environ.get("HOLON_OUTPUT_DIR", "")).replace(
        "{workspace}", str(Path.cwd())
    )


def _write(spec: dict[str, Any]) -> None:
    path = Path(_subst(str(spec["path"])))
    path.parent.mkdir(parents=True, exist_ok=True)
    if "base64" in spec:
        path.write_bytes(base64.b64decode(spec["base64"]))
    else:
        path.write_text(_subst(str(spec.get("content", ""))), encoding="utf-8")
    if "mode" in spec:
        path.chmod(int(str(spec["mode"]), 8))


def play(steps: list[dict[str, Any]], prompt: str) -> int:
    skills = [
        line[len("## Skill: ") :] for line in prompt.splitlines() if line.startswith("## Skill: ")
    ]
    emit(type="init", session_id=f"replay-{uuid.uuid4().hex[:12]}", model="replay", skills=skills)
    last_text = ""
    turns = 0
    for index, step in enumerate(steps):
        kind, arg = next(iter(step.items()))
        tool_id = f"t{index + 1}"
        if kind == "say":
            last_text = _subst(str(arg))
            emit(type="say", text=last_text)
        elif kind == "sleep":
            time.sleep(float(arg))
        elif kind == "exit":
            return int(arg)
        elif kind == "outcome":
            emit(type="result", outcome=str(arg), text=last_text, turns=turns)
            return 0
        elif kind == "write":
            turns += 1
            emit(type="tool", id=tool_id, name="write", path=str(arg["path"]))
            _write(arg)
            emit(type="tool_result", id=tool_id, status="ok")
        elif kind == "delete":
            turns += 1
            emit(type="tool", id=tool_id, name="delete", path=str(arg))
            target = Path(_subst(str(arg)))
            ok = target.exists() or target.is_symlink()
            if ok:
                target.unlink()
            emit(type="tool_result", id=tool_id, status="ok" if ok else "error")
        elif kind == "run":
            turns += 1
            emit(type="tool", id=tool_id, name="run", command=str(arg))
            done = subprocess.run(
                _subst(str(arg)), shell=True, capture_output=True, text=True, check=False
            )
            emit(
                type="tool_result",
                id=tool_id,
                status="ok" if done.returncode == 0 else "error",
                exit_code=done.returncode,
                output=(done.stdout + done.stderr)[-4000:],
            )
    emit(type="result", outcome="success", text=last_text, turns=turns)
    return 0


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        sys.stderr.write("usage: python -m holon_core.builtin.replay_engine SCRIPT PROMPT_FILE\n")
        return 2
    try:
        steps = load_script(Path(args[0]))
    except (OSError, ValueError, yaml.YAMLError) as exc:
        error = f"replay script: {exc}"
        if isinstance(exc, FileNotFoundError):
            error += " (set HOLON_REPLAY_SCRIPT, or put context/replay.yaml next to the spec)"
        emit(type="result", outcome="failure", error=error, text="", turns=0)
        return 1
    os.environ["HOLON_REPLAY_PROMPT_FILE"] = args[1]
    return play(steps, Path(args[1]).read_text(encoding="utf-8"))


if __name__ == "__main__":
    sys.exit(main())
