"""Shell calls Gemini CLI refused or cut off are failed calls without an exit code.

Data captured from the real CLI 0.61.0 with ``tests/capture.py`` (``refused``): two command
substitutions (blocked, ``status: success``), a ``dir_path`` outside the workspace and a
command a home policy denies (``status: error``), a command killed by the 1 s inactivity
limit (``status: success``), then a command that only prints the refusal text and ran.
The stream says ``success`` overall and the model ends "Done, all good.".
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from holon_adapter_gemini.parser import GeminiParser
from holon_adapter_gemini.refusals import refusal

from holon_core.record.outcome import tools_failed

DATA = Path(__file__).parent / "data"


def run_parser(home: Path | None = None) -> GeminiParser:
    parser = GeminiParser(model="gemini-2.5-flash", home=home)
    exit_code = None
    for line in (DATA / "refused.jsonl").read_text("utf-8").splitlines():
        raw = json.loads(line)
        if "exit_code" in raw and "type" not in raw:
            exit_code = raw["exit_code"]
            continue
        parser.feed(line)
    parser.finish(exit_code)
    return parser


def test_refused_and_cut_off_commands_are_failed_calls_that_never_exited() -> None:
    report = run_parser().report
    verdicts = [(t.command, t.ok, t.exit_code) for t in report.tool_log]
    assert verdicts == [
        ("echo $(date)", False, None),
        ("echo `date` <(true)", False, None),
        ("ls", False, None),
        ("whoami", False, None),
        ("sleep 3", False, None),
        ("echo 'Blocked: command substitution detected in shell command.'", True, None),
    ]
    errors = [t.error for t in report.tool_log]
    assert errors[0] == errors[1] and errors[0] is not None
    assert errors[0].startswith("refused by Gemini CLI: command substitution")
    assert "did not run" in errors[0]
    assert errors[2] is not None and errors[2].startswith(
        "refused by Gemini CLI: invalid parameters (Path not in workspace"
    )
    policy = "Tool execution denied by policy. No whoami here."
    assert errors[3] == f"refused by Gemini CLI: denied by policy ({policy})"
    assert errors[4] is not None and errors[4].startswith("cancelled by Gemini CLI: Command was")
    assert errors[5] is None
    assert report.tool_failures == 5


def test_the_events_carry_the_refusal_and_the_manifest_counts_it() -> None:
    parser = GeminiParser(model="gemini-2.5-flash")
    events = []
    for line in (DATA / "refused.jsonl").read_text("utf-8").splitlines()[:-1]:
        events.extend(parser.feed(line))
    results = [e for e in events if e.type == "tool_result"]
    assert [e.status for e in results] == ["error"] * 5 + ["ok"]
    kinds = [e.data["error"]["type"] for e in results[:5]]
    assert kinds == [
        "command_substitution",
        "command_substitution",
        "invalid_tool_params",
        "policy_violation",
        "timeout",
    ]
    assert all("exit_code" not in e.data for e in results)
    summary = parser.report.tool_summary()
    counts = (summary["commands"], summary["commands_failed"], summary["last_failed"])
    assert counts == (6, 5, False)
    first = summary["failed_commands"][0]
    assert first["command"] == "echo $(date)" and first["exit_code"] is None
    assert first["error"].startswith("refused by Gemini CLI: command substitution")


def test_the_session_log_does_not_overrule_a_refusal(tmp_path: Path) -> None:
    lines = (DATA / "refused.session.jsonl").read_text("utf-8").splitlines()
    session_id = json.loads(lines[0])["sessionId"]
    chats = tmp_path / "home" / ".gemini" / "tmp" / "ws" / "chats"
    chats.mkdir(parents=True)
    shutil.copyfile(DATA / "refused.session.jsonl", chats / f"session-x-{session_id[:8]}.jsonl")
    report = run_parser(tmp_path / "home").report
    assert [t.ok for t in report.tool_log] == [False] * 5 + [True]
    # Only the one command that ran gets its exit code (0) from the log.
    assert report.tool_log[5].exit_code == 0
    assert [e.tool_id for e in report.late_events] == [report.tool_log[5].tool_id]
    assert tools_failed(report) is None  # the last command worked: rule 9 stays quiet


def test_only_a_command_with_a_substitution_can_have_been_blocked_for_one() -> None:
    blocked = "Blocked: command substitution detected in shell command."
    assert refusal("echo $(id)", "success", blocked, None) is not None
    assert refusal("cat x >(tee y)", "success", blocked, None) is not None
    assert refusal("cat notes.txt", "success", blocked, None) is None
    assert refusal("ls", "success", "Command cancelled by user.", None) == (
        "cancelled",
        "cancelled by Gemini CLI before it finished (the run was stopped)",
    )
    cut = "Command cancelled by user.\n\nOutput before cancellation:\npartial"
    assert refusal("make", "success", cut, None) is not None
    # A tool error that is not a refusal (the command's own failure) is left to the parser.
    assert refusal("ls", "error", "x", {"type": "shell_execute_error", "message": "x"}) is None
