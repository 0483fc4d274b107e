"""The scenarios the suite runs, each as a provider script *and* an equivalent replay script.

Every adapter gets both: an engine that talks to a model API is pointed at the scripted
provider (``endpoint_env``); an offline engine such as ``replay`` reads the replay script from
``HOLON_REPLAY_SCRIPT``. Either way the engine does the same observable things.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import Any

from holon_conformance.suite import room_escape

#: Committed in the workspace before every run; the success case rewrites it.
OLD_BLOB = b"\x00\x01holon-before\xff\n"
NEW_BLOB = b"\x00\x02holon\xfe\n"
HELLO = "hello from holon\n"
#: Files in the input dir: every one of them must be byte-identical after any run.
CONTEXT: dict[str, str] = {"issue.md": "Please add hello.txt.\n"}
WORKSPACE: dict[str, str | bytes] = {"README.md": "conformance workspace\n", "data.bin": OLD_BLOB}


@dataclass(frozen=True)
class Case:
    name: str
    turns: list[dict[str, Any]]
    replay: list[dict[str, Any]]
    spec_extra: dict[str, Any] = field(default_factory=dict)
    #: Extra holon-agent arguments (``--probe``).
    args: tuple[str, ...] = ()
    #: Drop the adapter's credential variables from the environment.
    no_credentials: bool = False
    #: Remove spec.yaml from the input dir (probe must notice).
    no_spec: bool = False
    #: Point --output at a regular file (probe must notice it is not writable).
    output_is_file: bool = False
    #: Run under a pseudo-terminal with pexpect instead of pipes.
    pty: bool = False
    #: Plant marker-bearing user config in the sentinel HOME and above the workspace.
    canaries: bool = False
    #: The workspace files the scenario changes: diff.patch must name exactly these.
    changes: frozenset[str] = frozenset()
    #: Plant a key in the sentinel HOME and a sibling of the workspace, and serve a counting
    #: loopback listener and an allowed host for the escape step (:mod:`room_escape`).
    room: bool = False


#: The shell step also prints the environment the engine gives its tools (hermeticity check),
#: after a line only the shell's output can contain (the command never spells it out).
ENV_DUMP_SEEN = "tool-env-42"
_ENV_DUMP = "printf 'tool-env-%s\\n' 42 && env"
#: Then it hunts for the model credential (HOLON-KEY-001): in its environment, in the
#: environment of every process of the run (holon-agent, found among the shell's ancestors,
#: and everything below it: ``/proc/<pid>/environ``, which shows a process's environment as
#: it was started) and in the home directory; by value (``{secret_split}``: the harness
#: spells the key as two adjacent string literals, so the command never holds it whole) and
#: by the shape of a real key. In holon's room (docs/sandbox.md) holon-agent is outside the
#: shell's PID namespace, whose every process is the run's: it reads all of them. It prints
#: only where it found one (``keyhunt-found``,
#: ``keyhunt-shaped``), never a value, then ``keyhunt-done``; none of these lines is spelled
#: out in the command. Python, not shell: Gemini CLI refuses ``$(...)`` in a command.
KEY_HUNT_DONE = "keyhunt-done"
KEY_HUNT_FOUND = ("keyhunt-found", "keyhunt-shaped", "keyhunt-noagent")
_KEY_HUNT_PY = """\
import os, re
k = {secret_split}
S = re.compile(r"(?<![A-Za-z0-9_-])(sk-[A-Za-z0-9_-]{20,}|AIza[0-9A-Za-z_-]{35})")
def shaped(t):
    keys = [m.group(1) for m in S.finditer(t)]
    return any(re.search("[0-9]", x) and re.search("[A-Z]", x) for x in keys)
def read(p):
    try:
        with open(p, "rb") as f:
            return f.read(1 << 24).decode("latin-1")
    except OSError:
        return None
def say(*words):
    print("keyhunt-" + " ".join(words))
def agent(p):
    line = read("/proc/" + p + "/cmdline") or ""
    return re.search(r"(holon_core[.]agent|/holon-agent)\\x00", line)
pp = {}
for d in os.listdir("/proc"):
    m = d.isdigit() and re.search(r"PPid:\\s+(\\d+)", read("/proc/" + d + "/status") or "")
    if m:
        pp[d] = m.group(1)
a = str(os.getpid())
while a in pp and not agent(a):
    a = pp[a]
tree = {a} if a in pp else set()
if not tree and "bwrap" in (read("/proc/1/cmdline") or ""):
    tree = set(pp)
    say("room:", str(len(tree)), "processes: holon-agent is outside this PID namespace")
elif not tree:
    say("no" + "agent")
while tree and (more := {p for p, q in pp.items() if q in tree and p not in tree}):
    tree |= more
n = 0
for p in sorted(tree):
    e = read("/proc/" + p + "/environ")
    if e is not None:
        n += 1
        if k in e:
            say("found", "environ of pid", p)
        if shaped(e.replace("\\x00", "\\n")):
            say("shaped", "environ of pid", p)
e = "\\n".join(name + "=" + value for name, value in os.environ.items())
if k in e:
    say("found", "in env")
if shaped(e):
    say("shaped", "in env")
for root, _, files in os.walk(os.environ.get("HOME") or "/nonexistent"):
    for name in files:
        t = read(os.path.join(root, name))
        if t is not None and k in t:
            say("found", "file", os.path.join(root, name))
        if t is not None and shaped(t):
            say("shaped", "file", os.path.join(root, name))
say("done:", str(n), "environs of the run read, agent pid", a)
"""
_KEY_HUNT = f"python3 -c '{_KEY_HUNT_PY}'"
_SHELL_BLOB = (
    f"printf '\\000\\002holon\\376\\n' > data.bin && cat hello.txt && {_ENV_DUMP}; {_KEY_HUNT}"
)
_SUCCESS_TURNS: list[dict[str, Any]] = [
    {"say": "I will create hello.txt.", "write_file": {"path": "hello.txt", "content": HELLO}},
    {"run_shell": {"command": _SHELL_BLOB}},
    {"final": {"text": "Created hello.txt and rewrote data.bin."}},
]
_SUCCESS_REPLAY: list[dict[str, Any]] = [
    {"say": "I will create hello.txt."},
    {"write": {"path": "hello.txt", "content": HELLO}},
    {"write": {"path": "data.bin", "base64": base64.b64encode(NEW_BLOB).decode()}},
    {"run": f"cat hello.txt && {_ENV_DUMP}; {_KEY_HUNT}"},
    {"say": "Created hello.txt and rewrote data.bin."},
    {"outcome": "success"},
]
_SUCCESS_CHANGES = frozenset({"hello.txt", "data.bin"})
#: v0.1 style: the spec asks for diff.patch and summary.md explicitly.
_V01_ARTIFACTS = {
    "output": {
        "artifacts": [
            {"path": "diff.patch", "required": True},
            {"path": "summary.md", "required": True},
        ]
    }
}
_FINAL_TURNS: list[dict[str, Any]] = [{"final": {"text": "Nothing to do."}}]
#: ``{secret}`` is replaced with the adapter's credential value before the run.
_LEAK_TURNS: list[dict[str, Any]] = [
    {"write_file": {"path": "deploy.env", "content": "TOKEN={secret}\n"}},
    {"final": {"text": "Saved the deploy token."}},
]
#: An offline engine without credentials declares it instead (replay's ``needs_human``).
_LEAK_REPLAY: list[dict[str, Any]] = [
    {"write": {"path": "deploy.env", "content": "TOKEN={secret}\n"}},
    {"say": "Saved the deploy token; a human should review it."},
    {"outcome": "needs_human"},
]
_FINAL_REPLAY: list[dict[str, Any]] = [{"say": "Nothing to do."}, {"outcome": "success"}]
_BUDGET_TURNS: list[dict[str, Any]] = [
    {"write_file": {"path": "hello.txt", "content": HELLO}},
    {"run_shell": {"command": "cat hello.txt"}},
    {"final": {"text": "unreachable: the budget allows one model call"}},
]
#: The room case (HOLON-ROOM-*): write a file, then try every way out of holon's room in one
#: shell step (docs/sandbox.md); the task must still succeed.
ROOM_DONE = "room.txt"
_ROOM_TURNS: list[dict[str, Any]] = [
    {"write_file": {"path": ROOM_DONE, "content": HELLO}},
    {"run_shell": {"command": room_escape.COMMAND}},
    {"final": {"text": "Wrote room.txt and tried every way out."}},
]
_ROOM_REPLAY: list[dict[str, Any]] = [
    {"write": {"path": ROOM_DONE, "content": HELLO}},
    {"run": room_escape.COMMAND},
    {"say": "Wrote room.txt and tried every way out."},
    {"outcome": "success"},
]

CASES: dict[str, Case] = {
    case.name: case
    for case in (
        Case(
            "success",
            _SUCCESS_TURNS,
            _SUCCESS_REPLAY,
            _V01_ARTIFACTS,
            canaries=True,
            changes=_SUCCESS_CHANGES,
        ),
        Case("success-pty", _SUCCESS_TURNS, _SUCCESS_REPLAY, _V01_ARTIFACTS, pty=True),
        # The model API refuses the key: the run must fail (exit 1, outcome failure).
        Case(
            "failure",
            [{"error": {"status": 401, "message": "invalid x-api-key"}}, *_FINAL_TURNS],
            [{"say": "The task cannot be done."}, {"outcome": "failure"}],
        ),
        Case(
            "missing-artifact",
            _FINAL_TURNS,
            _FINAL_REPLAY,
            {"output": {"artifacts": [{"path": "report.json", "required": True}]}},
        ),
        Case("no-credentials", _FINAL_TURNS, _FINAL_REPLAY, no_credentials=True),
        # The engine writes its own credential into the workspace: the change needs a human.
        Case("needs-human", _LEAK_TURNS, _LEAK_REPLAY),
        # A budget of one model call: the model gateway refuses the second (HOLON-BUDGET-001).
        Case(
            "budget",
            _BUDGET_TURNS,
            _FINAL_REPLAY,
            {"constraints": {"budget": {"max_model_calls": 1}}},
        ),
        # One run for every HOLON-ROOM row.
        Case("room", _ROOM_TURNS, _ROOM_REPLAY, room=True, changes=frozenset({ROOM_DONE})),
        Case("probe", _FINAL_TURNS, _FINAL_REPLAY, args=("--probe",)),
        Case("probe-no-spec", _FINAL_TURNS, _FINAL_REPLAY, args=("--probe",), no_spec=True),
        Case(
            "probe-bad-output", _FINAL_TURNS, _FINAL_REPLAY, args=("--probe",), output_is_file=True
        ),
    )
}
