"""The room's checks (holon docs/sandbox.md): one run of the ``room`` case per adapter.

The case writes a file and runs one shell step that tries every way out (:mod:`room_escape`):
read the key planted in the sentinel HOME holon-agent was given and in a sibling of the
workspace, list that HOME, write into it and next to the workspace, connect to a listener on
the host's loopback with curl, Python, bash's ``/dev/tcp`` and Node, fetch a denied host and an
allowed one (a loopback server under a name the proxy resolves). The step's output is looked
for where it lands: the model requests (tool results go back to the model) and the output
directory (an offline engine's events).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from holon_conformance.suite import room_escape
from holon_conformance.suite.cases import ROOM_DONE
from holon_conformance.suite.harness import Target
from holon_conformance.suite.marks import CheckBase, req
from holon_conformance.suite.room_escape import RoomEscape
from holon_conformance.suite.run_record import RunRecord


def _room_off_on_purpose() -> bool:
    """The operator runs the suite with the room off and hands that to holon-agent
    (``HOLON_SANDBOX=off`` named in ``HOLON_CONFORMANCE_PASS_ENV``: holon's own image, where
    the container is the boundary, docs/sandbox.md). Only then are the room's rows N/A; a
    room that is off for any other reason fails them."""
    passed = os.environ.get("HOLON_CONFORMANCE_PASS_ENV", "").replace(",", " ").split()
    return "HOLON_SANDBOX" in passed and os.environ.get("HOLON_SANDBOX", "").lower() == "off"


def _room_run(target: Target) -> tuple[RunRecord, RoomEscape]:
    if _room_off_on_purpose():
        pytest.skip("N/A: the suite runs with HOLON_SANDBOX=off passed to holon-agent")
    run = target.run("room")
    if run.escape is None:
        pytest.fail("the room case planted nothing: nothing was verified")
    return run, run.escape


def _texts(run: RunRecord) -> dict[str, str]:
    """Where the escape step's output can land: model requests, the output dir, and
    holon-agent's own stdout and stderr."""
    texts = {f"request {i + 1}": text for i, text in enumerate(run.requests)}
    if run.output_dir.is_dir():
        for path in sorted(run.output_dir.rglob("*")):
            if path.is_file() and not path.is_symlink():
                name = f"output {path.relative_to(run.output_dir)}"
                texts[name] = path.read_bytes().decode("utf-8", "replace")
    texts["holon-agent stdout/stderr"] = run.output
    return texts


def _step_output(run: RunRecord) -> str:
    """Everything the step could have printed into, after checking that it ran to its end."""
    texts = _texts(run)
    if not any(room_escape.DONE in text for text in texts.values()):
        pytest.fail(
            "the escape step's output is neither in a model request nor in the output dir: "
            f"the room cannot be verified\n{run.describe()}"
        )
    return "\n".join(texts.values())


def _missing(seen: str, names: tuple[str, ...]) -> list[str]:
    return [name for name in names if f"{name}-failed" not in seen]


def _sandbox(run: RunRecord) -> dict[str, Any]:
    sandbox = ((run.manifest or {}).get("metadata") or {}).get("sandbox")
    if not isinstance(sandbox, dict):
        pytest.fail(f"manifest.json has no metadata.sandbox\n{run.describe()}")
    if sandbox.get("mode") != "on":
        pytest.fail(f"metadata.sandbox.mode is {sandbox.get('mode')!r}: the engine ran outside")
    return sandbox


def _attempts(run: RunRecord) -> list[dict[str, Any]]:
    path = run.output_dir / "evidence" / "network.ndjson"
    if not path.is_file():
        pytest.fail(f"no evidence/network.ndjson: the proxy recorded nothing\n{run.describe()}")
    found: list[dict[str, Any]] = []
    for line in path.read_text("utf-8", "replace").splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            pytest.fail(f"evidence/network.ndjson holds a line that is not JSON: {line[:120]!r}")
        if isinstance(item, dict):
            found.append(item)
    return found


class BaseRoom(CheckBase):
    @req("HOLON-ROOM-001")
    def test_the_host_home_is_invisible(self, holon_target: Target) -> None:
        run, escape = _room_run(holon_target)
        seen = _step_output(run)
        leaks = [where for where, text in _texts(run).items() if escape.secret in text]
        assert not leaks, (
            f"the key planted in {escape.home} and {escape.sibling} was read by the engine: "
            f"it reached {leaks[:6]}"
        )
        missing = _missing(seen, room_escape.HOME_ATTEMPTS)
        assert not missing, (
            f"the host's paths are visible from the engine's tools: {missing} did not fail "
            f"(the user's home {escape.home}, the sibling {escape.sibling})\n{run.describe()}"
        )

    @req("HOLON-ROOM-002")
    def test_nothing_is_written_outside_the_workspace_and_run_home(
        self, holon_target: Target
    ) -> None:
        run, escape = _room_run(holon_target)
        _step_output(run)
        written = [str(p) for p in escape.write_targets if p.exists() or p.is_symlink()]
        # What the step wrote wherever it landed: new files in the sentinel HOME and TMPDIR,
        # beside the task's dirs and in the sibling. What holon-agent or the adapter itself
        # writes there (outside the room) is RFC2-OUT-001/003's to judge.
        written += [p for p in run.outside_writes if Path(p).name == "pwned" and p not in written]
        assert not written, f"the engine's tools wrote outside the room: {written[:8]}"

    @req("HOLON-ROOM-003")
    def test_no_direct_connection_leaves_the_room(self, holon_target: Target) -> None:
        run, escape = _room_run(holon_target)
        seen = _step_output(run)
        assert escape.connections == 0, (
            f"{escape.connections} connection(s) reached a listener on the host's loopback "
            f"(127.0.0.1:{escape.port}) from the engine's tools"
        )
        assert "node-reached" not in seen, "node's fetch reached the host's loopback listener"
        missing = _missing(seen, room_escape.CONNECT_ATTEMPTS)
        assert not missing, f"{missing} did not fail, yet nothing was accepted\n{run.describe()}"

    @req("HOLON-ROOM-004")
    def test_a_denied_host_is_recorded(self, holon_target: Target) -> None:
        run, _ = _room_run(holon_target)
        seen = _step_output(run)
        assert "denied-host-failed" in seen, f"the denied host answered\n{run.describe()}"
        attempts = [a for a in _attempts(run) if a.get("host") == room_escape.DENIED_NAME]
        assert attempts, (
            f"no attempt to reach {room_escape.DENIED_NAME} in evidence/network.ndjson: the "
            "request never reached the egress proxy"
        )
        assert not any(a.get("allowed") for a in attempts), f"the proxy let it through: {attempts}"
        denied = (_sandbox(run).get("network") or {}).get("denied_hosts") or []
        assert room_escape.DENIED_NAME in denied, (
            f"metadata.sandbox.network.denied_hosts does not name it: {denied}"
        )

    @req("HOLON-ROOM-005")
    def test_an_allowed_host_works_through_the_proxy(self, holon_target: Target) -> None:
        run, escape = _room_run(holon_target)
        seen = _step_output(run)
        assert escape.allowed_hits > 0 and room_escape.ALLOWED_BODY in seen, (
            f"the allowed host ({room_escape.ALLOWED_NAME}:{escape.allowed_port}, "
            f"HOLON_ALLOW_HOSTS) was not reached ({escape.allowed_hits} requests served)\n"
            f"{run.describe()}"
        )
        attempts = [a for a in _attempts(run) if a.get("host") == room_escape.ALLOWED_NAME]
        assert attempts and all(a.get("allowed") for a in attempts), (
            f"evidence/network.ndjson does not record the allowed host as allowed: {attempts}"
        )
        assert any(int(a.get("bytes_received") or 0) > 0 for a in attempts), attempts

    @req("HOLON-ROOM-006")
    def test_the_task_succeeds_in_the_room(self, holon_target: Target) -> None:
        run, _ = _room_run(holon_target)
        manifest = run.manifest
        if manifest is None:
            pytest.fail(f"{run.manifest_error}\n{run.describe()}")
        assert (run.exit_code, manifest.get("outcome")) == (0, "success"), run.describe()
        _sandbox(run)
        patch = run.output_dir / "diff.patch"
        text = patch.read_text("utf-8", "replace") if patch.is_file() else ""
        assert f"b/{ROOM_DONE}" in text, f"diff.patch lacks {ROOM_DONE}\n{run.describe()}"
