"""Which chat log continues a session when the CLI left several for it.

Data captured from the real CLI 0.61.0 (``data/resume_logs/``, paths rewritten to
``/tmp/capture``): three turns as in ``test_gemini_resume.py``, turn 2 started in the minute
after turn 1. Turn 2 (``--resume``) left a stub named after its own minute beside the log it
appended to; turn 3 (``--session-file`` from another cwd) left the import and its stub. The
CI failure this guards: the newest name was taken, the stub, and turn 3 lost the conversation.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from holon_adapter_gemini.resume import resume_args
from holon_adapter_gemini.session_log import find_session_log

DATA = Path(__file__).parent / "data" / "resume_logs"
RESUMED = "ccbb749a-052f-48ac-85bd-6a00925a2a59"  # turns 1 and 2, in project "workspace"
IMPORTED = "f61c56bd-5a04-4939-a10b-2e9b0923030c"  # turn 3, in project "workspace-1"


def captured_home(tmp_path: Path) -> Path:
    """A run-local home holding the captured logs, each project owned by a workspace."""
    home = tmp_path / "home"
    shutil.copytree(DATA, home / ".gemini" / "tmp")
    for project in ("workspace", "workspace-1"):
        root = tmp_path / project
        root.mkdir()
        (home / ".gemini" / "tmp" / project / ".project_root").write_text(str(root), "utf-8")
    return home


def test_the_log_holding_the_conversation_wins_over_a_newer_stub(tmp_path: Path) -> None:
    home = captured_home(tmp_path)
    chats = home / ".gemini" / "tmp" / "workspace" / "chats"
    stub = chats / "session-2026-11-23T00-59-ccbb749a.jsonl"
    assert stub.is_file() and "MARK" not in stub.read_text("utf-8")  # the newest name
    log = find_session_log(home, RESUMED)
    assert log == chats / "session-2026-11-23T00-58-ccbb749a.jsonl"
    assert "MARK-ONE" in log.read_text("utf-8") and "MARK-TWO" in log.read_text("utf-8")
    # From another workspace the conversation itself is imported; from its own, --resume.
    assert resume_args(home, RESUMED, tmp_path / "workspace-1") == ["--session-file", str(log)]
    assert resume_args(home, RESUMED, tmp_path / "workspace") == ["--resume", RESUMED]


def test_an_imported_session_is_read_from_the_import_not_its_stub(tmp_path: Path) -> None:
    home = captured_home(tmp_path)
    chats = home / ".gemini" / "tmp" / "workspace-1" / "chats"
    log = find_session_log(home, IMPORTED)  # the stub's name sorts after the epoch-ms one
    assert log == chats / "session-1795395549820-f61c56bd.jsonl"
    assert "MARK-THREE" in log.read_text("utf-8")


def test_a_log_of_another_session_sharing_the_first_8_chars_is_never_taken(
    tmp_path: Path,
) -> None:
    home = captured_home(tmp_path)
    other = RESUMED[:8] + "-0000-4000-8000-000000000000"
    assert find_session_log(home, other) is None
    # Among logs without conversation the latest update, then the name, decides.
    chats = home / ".gemini" / "tmp" / "workspace" / "chats"
    (chats / "session-2026-11-23T00-58-ccbb749a.jsonl").unlink()
    assert find_session_log(home, RESUMED) == chats / "session-2026-11-23T00-59-ccbb749a.jsonl"
    header = {"sessionId": RESUMED, "lastUpdated": "2026-11-23T01:00:00.000Z"}
    later = chats / "session-2026-11-23T00-57-ccbb749a.jsonl"
    later.write_text(json.dumps(header) + "\n", "utf-8")
    assert find_session_log(home, RESUMED) == later
