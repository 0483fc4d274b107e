"""One scripted ``holon-agent serve`` session per adapter, shared by every SERVE check.

The session, driven from outside over the Unix socket: wait for ``/health``; turn 1 (plain
JSON answer); turn 2 continuing turn 1 through ``previous_response_id`` (streamed; the
engine runs a shell command first: replay's script always does); turn 3
continuing turn 2 (plain); an unknown ``previous_response_id``; turn 4, which hangs (a silent
model, or a sleeping replay script), meets a second request while in flight and is
cancelled; then ``/shutdown``. Everything seen
is kept in a :class:`ServeRecord`: statuses, bodies, the raw streams, the model requests of
each turn and what was left behind (socket, processes).
"""

from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from holon_conformance.suite import uds_http
from holon_conformance.suite.agent_env import PLANTED_SECRETS, agent_base_env

if TYPE_CHECKING:
    from holon_conformance.provider import ScriptedProvider
    from holon_conformance.suite.harness import Target

RESPONSES = "/v1/responses"
#: Words each turn's input carries; a continued turn's engine must be shown the earlier ones.
MARKS = ("SERVE-MARK-ONE", "SERVE-MARK-TWO", "SERVE-MARK-THREE", "SERVE-MARK-FOUR")
STATELESS_MARK = "SERVE-MARK-STATELESS"
START_TIMEOUT = 60.0
TURN_TIMEOUT = 150.0
#: How long the in-flight probe waits before counting the second request as "waiting".
BUSY_PROBE_TIMEOUT = 5.0
#: What the scripted model (and the replay script) answers: the turn's output_text.
FINAL_TEXT = "Done: nothing to change."
_FINAL = [{"final": {"text": FINAL_TEXT}}]
#: Turn 2 runs a shell command first: the stream shows a tool the engine ran.
TOOL_COMMAND = "echo serve-tool-ran"
_TOOL = [{"run_shell": {"command": TOOL_COMMAND}}, *_FINAL]
_STALL = [{"stall": {"seconds": 120}, "times": "forever"}, *_FINAL]
#: Replay: show the prompt (``cat`` of the prompt file), then answer.
_REPLAY_SHOW = [
    {"run": 'cat "$HOLON_REPLAY_PROMPT_FILE"'},
    {"say": FINAL_TEXT},
    {"outcome": "success"},
]
_REPLAY_HANG = [{"say": "working"}, {"sleep": 120}, {"outcome": "success"}]


@dataclass
class Turn:
    """One ``POST /v1/responses`` and what it caused."""

    status: int
    body: bytes
    headers: dict[str, str]
    #: Text of every model request the turn made (empty for an offline engine).
    model_requests: list[str] = field(default_factory=list)
    events: list[uds_http.SseEvent] = field(default_factory=list)

    @property
    def response(self) -> dict[str, Any]:
        """The final response object: the JSON body, or the stream's terminal event's."""
        if self.events:
            for event in reversed(self.events):
                data = event.data
                if isinstance(data, dict) and isinstance(data.get("response"), dict):
                    return dict(data["response"])
            return {}
        try:
            data = json.loads(self.body.decode("utf-8"))
        except ValueError:
            return {}
        return data if isinstance(data, dict) else {}

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", errors="replace")


@dataclass
class ServeRecord:
    """Everything observed in one serve session."""

    adapter: str
    socket: Path
    output: Path
    log: str = ""
    error: str | None = None
    socket_mode: int | None = None
    health: uds_http.Reply | None = None
    turns: list[Turn] = field(default_factory=list)
    unknown_previous: uds_http.Reply | None = None
    #: A new conversation sent statelessly: turns 1 and 2 as messages, then a new user one.
    stateless: Turn | None = None
    #: The second request made while turn 4 ran: its reply, or None when it waited.
    busy: uds_http.Reply | None = None
    busy_waited: bool = False
    cancel: uds_http.Reply | None = None
    shutdown: uds_http.Reply | None = None
    exit_code: int | None = None
    socket_left: bool = False
    leftovers: list[str] = field(default_factory=list)

    def turn_dir(self, turn: Turn) -> Path:
        """``<output>/turns/<turn_id>/`` of a turn (from the response's ``holon`` object)."""
        holon = turn.response.get("holon") or {}
        turn_id = holon.get("turn_id") if isinstance(holon, dict) else None
        return self.output / "turns" / str(turn_id or "<no holon.turn_id in the response>")

    def describe(self) -> str:
        tail = "\n".join(self.log.strip().splitlines()[-20:])
        return (
            f"serve session of {self.adapter}: {self.error or 'ran'}; exit {self.exit_code}\n{tail}"
        )


def run_session(target: Target) -> ServeRecord:
    """Drive the whole session; a step that fails ends it early (the record says where)."""
    from holon_conformance.processes import become_subreaper, descendant_pids, leftovers
    from holon_conformance.provider import ScriptedProvider, parse_scenario
    from holon_core.testing import make_task

    become_subreaper()
    root = Path(tempfile.mkdtemp(prefix=f"{target.name}-serve-", dir=target.workdir))
    task = make_task(root / "task", goal="Answer the user.", files={"README.md": "serve\n"})
    # AF_UNIX paths are short (108 bytes): the socket lives in a short temp dir of its own.
    sock_dir = Path(tempfile.mkdtemp(prefix="hs-"))
    record = ServeRecord(target.name, sock_dir / "agent.sock", task.output)
    replay = root / "replay.yaml"
    replay.write_text(yaml.safe_dump(_REPLAY_SHOW), "utf-8")
    (root / "home").mkdir()
    (root / "tmp").mkdir()
    scenario = parse_scenario({"turns": _FINAL}, "serve-final")
    with ScriptedProvider(scenario, workdir=str(task.workspace)) as provider:
        endpoint = target.adapter.endpoint_env(provider.url)
        names = target.adapter.credential_env
        if not any(name in endpoint for name in names):  # an offline engine: a fake value
            endpoint |= {name: f"holon-conformance-fake-{name.lower()}" for name in names}
        env = agent_base_env() | PLANTED_SECRETS | endpoint
        env |= {"HOME": str(root / "home"), "TMPDIR": str(root / "tmp")}
        env |= {"HOLON_REPLAY_SCRIPT": str(replay), "HOLON_TIMEOUT": "120"}
        argv = [sys.executable, "-m", "holon_core.agent", "serve", "--engine", target.name]
        argv += ["--socket", str(record.socket), "--input", str(task.input)]
        argv += ["--workspace", str(task.workspace), "--output", str(task.output)]
        argv += ["--state", str(task.state)]
        pids_before = descendant_pids()
        log_path = root / "serve.log"
        with log_path.open("wb") as log:
            proc = subprocess.Popen(
                argv, env=env, cwd=root, stdin=subprocess.DEVNULL, stdout=log, stderr=log
            )
            try:
                _drive(record, proc, provider, replay)
            except (OSError, AssertionError, ValueError) as exc:
                record.error = record.error or f"{type(exc).__name__}: {exc}"
            finally:
                _stop(record, proc)
        record.log = log_path.read_text(encoding="utf-8", errors="replace")
        record.leftovers = leftovers(pids_before, grace=1.5)
    record.socket_left = record.socket.exists()
    with contextlib.suppress(OSError):
        record.socket.unlink()
        sock_dir.rmdir()
    return record


def _drive(
    record: ServeRecord, proc: subprocess.Popen[bytes], provider: ScriptedProvider, replay: Path
) -> None:
    from holon_conformance.provider import parse_scenario

    path = str(record.socket)
    record.health = _wait_ready(path, proc)
    record.socket_mode = record.socket.stat().st_mode & 0o777
    one = _turn(provider, lambda: uds_http.request(path, "POST", RESPONSES, _body(0)))
    record.turns.append(one)
    first_id = one.response.get("id")
    assert one.status == 200 and isinstance(first_id, str), f"turn 1 failed: {one.text[:500]}"
    two_body = _body(1, previous=first_id, stream=True)
    provider.set_scenario(parse_scenario({"turns": _TOOL}, "serve-tool"))
    two = _turn(provider, lambda: uds_http.stream(path, RESPONSES, two_body, lambda _l: None))
    provider.set_scenario(parse_scenario({"turns": _FINAL}, "serve-final"))
    two.events = uds_http.parse_sse(two.text)
    record.turns.append(two)
    second_id = two.response.get("id")
    assert two.status == 200 and isinstance(second_id, str), f"turn 2 failed: {two.text[:500]}"
    three_body = _body(2, previous=second_id)
    record.turns.append(
        _turn(provider, lambda: uds_http.request(path, "POST", RESPONSES, three_body))
    )
    unknown = _body(1, previous="resp_holonconformanceunknown0000")
    record.unknown_previous = uds_http.request(path, "POST", RESPONSES, unknown, timeout=30)
    stateless = {"input": [*_history(record.turns[:2]), _user(STATELESS_MARK)], "stream": False}
    record.stateless = _turn(provider, lambda: uds_http.request(path, "POST", RESPONSES, stateless))
    _hanging_turn(record, provider, replay)
    record.shutdown = uds_http.request(path, "POST", "/shutdown", {}, timeout=60)


def _hanging_turn(record: ServeRecord, provider: ScriptedProvider, replay: Path) -> None:
    """Turn 4: it hangs; a second request arrives meanwhile; then it is cancelled."""
    from holon_conformance.provider import parse_scenario

    path = str(record.socket)
    provider.set_scenario(parse_scenario({"turns": _STALL}, "serve-stall"))
    replay.write_text(yaml.safe_dump(_REPLAY_HANG), "utf-8")
    created = threading.Event()
    lines: list[str] = []

    def on_line(line: str) -> None:
        lines.append(line)
        if line.startswith("data:") and "response.created" in line:
            created.set()

    result: list[uds_http.Reply] = []
    body = _body(3, previous=str(record.turns[-1].response.get("id")), stream=True)
    worker = threading.Thread(
        target=lambda: result.append(uds_http.stream(path, RESPONSES, body, on_line)),
        name="serve-turn-4",
        daemon=True,
    )
    worker.start()
    assert created.wait(60), "turn 4 never sent response.created"
    time.sleep(1.0)  # the engine is started and waits on the silent model
    events = uds_http.parse_sse("\n".join(lines) + "\n\n")
    hanging_id = next(
        (e.data["response"]["id"] for e in events if e.event == "response.created"), None
    )
    try:
        record.busy = uds_http.request(
            path, "POST", RESPONSES, _body(0), timeout=BUSY_PROBE_TIMEOUT
        )
    except TimeoutError:
        record.busy_waited = True
    record.cancel = uds_http.request(
        path, "POST", f"{RESPONSES}/{hanging_id}/cancel", {}, timeout=60
    )
    worker.join(TURN_TIMEOUT)
    # A second request that waited runs next: give it (and any later turn) a quick answer.
    provider.set_scenario(parse_scenario({"turns": _FINAL}, "serve-final"))
    replay.write_text(yaml.safe_dump(_REPLAY_SHOW), "utf-8")
    assert result, "turn 4's stream did not end after the cancel"
    hanging = Turn(result[0].status, result[0].body, result[0].headers)
    hanging.events = uds_http.parse_sse(hanging.text)
    record.turns.append(hanging)


def _turn(provider: ScriptedProvider, send: Any) -> Turn:
    before = len(provider.turn_requests())
    reply: uds_http.Reply = send()
    texts = [r.text() for r in provider.turn_requests()[before:]]
    return Turn(reply.status, reply.body, reply.headers, model_requests=texts)


def _user(mark: str) -> dict[str, Any]:
    return {"type": "message", "role": "user", "content": f"Answer briefly. {mark}"}


def _history(turns: list[Turn]) -> list[dict[str, Any]]:
    """Earlier turns as a stateless client keeps them: its messages and the answers'."""
    items: list[dict[str, Any]] = []
    for index, turn in enumerate(turns):
        items.append(_user(MARKS[index]))
        output = turn.response.get("output")
        for item in output if isinstance(output, list) else []:
            if isinstance(item, dict) and item.get("type") == "message":
                items.append({"role": "assistant", "content": item.get("content")})
    return items


def _body(index: int, *, previous: str | None = None, stream: bool = False) -> dict[str, Any]:
    body: dict[str, Any] = {"input": f"Answer briefly. {MARKS[index]}", "stream": stream}
    if previous is not None:
        body["previous_response_id"] = previous
    return body


def _wait_ready(path: str, proc: subprocess.Popen[bytes]) -> uds_http.Reply:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"holon-agent serve exited {proc.returncode} before it was ready")
        if Path(path).exists():
            with contextlib.suppress(OSError):
                reply = uds_http.request(path, "GET", "/health", timeout=10)
                if reply.status == 200:
                    return reply
        time.sleep(0.1)
    raise AssertionError(f"no answer on {path} within {START_TIMEOUT:.0f} s")


def _stop(record: ServeRecord, proc: subprocess.Popen[bytes]) -> None:
    """Wait for the exit /shutdown asked for; stop the server if it was never asked."""
    if record.shutdown is None:
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(signal.SIGTERM)
    try:
        record.exit_code = proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        record.error = record.error or "holon-agent serve did not exit within 30 s"
