"""The user prompt reaches the model byte for byte, whatever it starts with: the CLI's
argument parser must never read it as a flag (``-p hello`` once ran the CLI's help).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from gemini_kit import run_gemini
from holon_conformance.provider import ScriptedProvider

from holon_core.testing import Task

Provider = Callable[[Any], ScriptedProvider]


def last_user_text(body: dict[str, Any]) -> str:
    parts = body["contents"][-1]["parts"]
    return str(parts[-1].get("text", ""))


@pytest.mark.parametrize(
    "prompt",
    ["-p hello", "--version", "-", '"wrapped in quotes"', "  spaced  \n"],
    ids=["short-flag", "long-flag", "dash", "quoted", "spaced"],
)
def test_prompt_arrives_byte_exact(task: Task, provider: Provider, prompt: str) -> None:
    (task.input / "prompts").mkdir()
    (task.input / "prompts" / "user.md").write_text(prompt, encoding="utf-8")
    server = provider("final-only")
    result = run_gemini(task, server)
    assert result.exit_code == 0, result.stderr
    assert last_user_text(server.turn_requests("gemini")[0].body) == prompt
