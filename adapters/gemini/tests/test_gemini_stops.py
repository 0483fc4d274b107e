"""Runs the Gemini CLI ends early on its own (loop detection) or that need more model turns
than ``constraints.max_steps`` allows: never recorded as success.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from gemini_kit import run_gemini
from holon_conformance.provider import ScriptedProvider

from holon_core.testing import Task

Provider = Callable[[Any], ScriptedProvider]


def test_a_run_stopped_by_loop_detection_is_a_failure(task: Task, provider: Provider) -> None:
    # The scripted model repeats the same shell call forever; the CLI's loop detector ends
    # the run with a warning and then `result status: success`, exit 0.
    server = provider("max-turns")
    result = run_gemini(task, server, HOLON_TIMEOUT="60")
    assert result.exit_code == 1, result.stderr
    assert result.manifest is not None
    assert result.manifest["outcome"] == "failure"
    assert result.manifest["metadata"]["reason"] == "engine_error"
    assert "loop" in result.manifest["error"]
    assert result.manifest["metadata"]["gemini"]["exit_code"] == 0


def test_max_steps_means_model_turns(task: Task, provider: Provider) -> None:
    # write-and-run needs three model turns: write, run, answer.
    task.spec.write_text(task.spec.read_text() + "constraints:\n  max_steps: 2\n")
    server = provider("write-and-run")
    result = run_gemini(task, server)
    assert result.exit_code == 1 and result.reason == "max_steps", result.stderr
    assert len(server.turn_requests("gemini")) == 2


def test_workspace_settings_cannot_raise_max_steps(task: Task, provider: Provider) -> None:
    # A committed .gemini/settings.json asking for 50 turns must not beat max_steps: 3.
    settings = task.workspace / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"model": {"maxSessionTurns": 50}}), encoding="utf-8")
    task.spec.write_text(task.spec.read_text() + "constraints:\n  max_steps: 3\n")
    server = provider("max-turns")
    result = run_gemini(task, server, HOLON_TIMEOUT="60")
    assert result.exit_code == 1 and result.reason == "max_steps", result.stderr
    assert len(server.turn_requests("gemini")) <= 4
