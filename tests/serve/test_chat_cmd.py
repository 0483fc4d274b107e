"""``holon chat`` as a user runs it: starts serve, streams turns, continues, attaches."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys

from holon_core.serve.client import ServeClient


def test_chat_starts_streams_continues_and_attaches(tmp_path):
    workspace, chat = tmp_path / "ws", tmp_path / "chat"
    workspace.mkdir()
    (workspace / "README.md").write_text("hi\n")
    script = tmp_path / "replay.yaml"
    script.write_text(
        "- say: hello there\n- write: {path: note.txt, content: x}\n"
        "- run: grep -q absent README.md\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOLON_")}
    env["HOLON_REPLAY_SCRIPT"] = str(script)
    base = [sys.executable, "-m", "holon_core", "chat", "--engine", "replay"]
    base += ["--workspace", str(workspace), "--dir", str(chat)]

    def chat_run(*extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*base, *extra], capture_output=True, text=True, env=env, timeout=120, check=False
        )

    try:
        first = chat_run("-m", "say hello", "--keep")
        assert first.returncode == 0, first.stderr
        assert "started holon-agent serve" in first.stdout
        assert "hello there" in first.stdout and "(success: ok;" in first.stdout
        # each tool the engine ran, on its own line: name, how it ended
        assert "  [write] completed\n" in first.stdout
        assert "  [run] completed (exit 1)\n" in first.stdout  # grep found no match: an answer
        assert (chat / "agent.sock").exists()  # --keep: still serving

        second = chat_run("-m", "and again")  # attaches, continues, and stops nothing it started
        assert second.returncode == 0, second.stderr
        assert "started" not in second.stdout and "hello there" in second.stdout
        turns = sorted((chat / "output" / "turns").iterdir())
        records = [json.loads((t / "turn.json").read_text()) for t in turns]
        continued = [r for r in records if r["previous_response_id"]]
        assert len(records) == 2 and len(continued) == 1
        assert continued[0]["continuation"]["mode"] == "transcript"
        assert all(r["workspace"]["mode"] == "isolated" for r in records)
        assert not (workspace / "note.txt").exists()  # the workspace itself is left alone

        with ServeClient(chat / "agent.sock") as client:
            assert client.health()["turns_served"] == 2
    finally:  # the server --keep left running
        with contextlib.suppress(Exception), ServeClient(chat / "agent.sock") as client:
            client.shutdown()
