"""Issue 12, item 3: a passed credential is found wherever the engine can put it, and is
redacted in the forms tools print it (HTTP Basic base64, hex, wrapped over lines)."""

from __future__ import annotations

import base64

import pytest

from holon_core.agent import secret_scan
from holon_core.testing import make_task, run_agent
from holon_core.untrusted.redact import Redactor

SECRET = "Zq8vL2xR7mW4kT9pN3sB6yH1cF5"  # no well-known token shape: only the known value helps
ENV = {"MY_API_TOKEN": SECRET, "HOLON_REPLAY_PASS_ENV": "MY_API_TOKEN"}


@pytest.mark.parametrize(
    ("command", "flagged"),
    [
        ("echo $MY_API_TOKEN > {output}/evidence/notes.txt", "output/evidence/notes.txt"),
        ("ln -s /tmp/$MY_API_TOKEN {output}/link", "output/link"),
        ("echo $MY_API_TOKEN > {output}/.holon-notes", "output/.holon-notes"),
        ("echo $MY_API_TOKEN | fold -w 7 > {output}/wrapped.txt", "output/wrapped.txt"),
        ("printf 'oauth2:%s' $MY_API_TOKEN | base64 > {output}/a.txt", "output/a.txt"),
        ("printf %s $MY_API_TOKEN | od -An -tx1 | tr -d ' \\n' > {output}/h.txt", "output/h.txt"),
        ("touch empty-$MY_API_TOKEN.txt", "empty-***REDACTED***.txt"),
        ("echo $MY_API_TOKEN | fold -w 9 | sed 's/^/  /' > wrapped.py", "wrapped.py"),
        (
            "{ head -c 67108870 /dev/zero; echo $MY_API_TOKEN; } > {output}/evidence/big.bin",
            "output/evidence/big.bin",
        ),
    ],
    ids=[
        "evidence",
        "symlink-target",
        "holon-hidden",
        "wrapped",
        "basic-auth",
        "hex",
        "file-name",
        "patch-wrap",
        "past-64-MiB",
    ],
)
def test_a_secret_anywhere_the_engine_writes_needs_a_human(tmp_path, command, flagged):
    task = make_task(tmp_path, replay=[{"run": command}, {"say": "done"}])
    result = run_agent(task, env=ENV)
    assert result.exit_code == 2, result.stderr
    assert result.manifest is not None
    assert result.manifest["metadata"]["reason"] == "secret_in_changes"
    assert result.manifest["metadata"]["secrets_in_changes"] == [flagged]


def test_printed_encodings_of_a_secret_are_redacted_in_the_record(tmp_path):
    basic = base64.b64encode(f"x-access-token:{SECRET}".encode()).decode()
    steps = [
        {"run": "printf ':%s' $MY_API_TOKEN | base64"},
        {"run": "printf 'x-access-token:%s' $MY_API_TOKEN | base64"},
        {"run": "printf %s $MY_API_TOKEN | od -An -tx1 | tr -d ' \\n' | tr a-f A-F"},
        {"run": "echo $MY_API_TOKEN | fold -w 5"},
        {"say": "done"},
    ]
    task = make_task(tmp_path, replay=steps)
    result = run_agent(task, env=ENV)
    assert result.exit_code == 0, result.stderr
    forms = [SECRET, basic[8:-8], SECRET.encode().hex().upper(), SECRET[5:10], SECRET[-7:]]
    for path in task.output.rglob("*"):
        if path.is_file():
            text = path.read_text(errors="replace")
            leaked = [form for form in forms if form in text]
            assert not leaked, (path, leaked)


def test_a_secret_where_two_scanned_pieces_meet_is_found(tmp_path, monkeypatch):
    monkeypatch.setattr(secret_scan, "SCAN_CHUNK", 4096)
    monkeypatch.setattr(secret_scan, "SCAN_OVERLAP", 1024)
    for at in (4096 - 10, 2 * 4096 - 1024 - 5, 3 * 4096 - 2 * 1024 - 1):
        (tmp_path / "out.bin").write_bytes(b"\0" * at + SECRET.encode() + b"\0" * 9000)
        assert secret_scan.scan_outputs(Redactor([SECRET]), tmp_path, ["out.bin"]) == [
            "output/out.bin"
        ], at


def test_a_file_too_large_to_scan_needs_a_human_with_the_reason(tmp_path, monkeypatch):
    monkeypatch.setattr(secret_scan, "SCAN_LIMIT", 1000)
    (tmp_path / "small.bin").write_bytes(b"\0" * 1000)
    (tmp_path / "big.bin").write_bytes(b"\0" * 1001)
    flagged = secret_scan.scan_outputs(Redactor([SECRET]), tmp_path, ["small.bin", "big.bin"])
    assert flagged == [
        "output/big.bin (not scanned for credentials: 1001 bytes, over the scan limit of "
        "1000 bytes)"
    ]
