"""What the suite must report for each deliberately broken adapter (:mod:`.broken`): the
rows that are not a pass, exactly, and the requirement each was written to break."""

from __future__ import annotations

_F = "FAIL"
#: Every row of the room case: an adapter whose engine never does the task fails them all
#: (the escape step's output is nowhere, and the task did not succeed).
_ROOM_ROWS = [f"HOLON-ROOM-00{n}" for n in range(1, 7)]
#: Broken adapter -> every row the suite must not pass, with its outcome (all others PASS,
#: supported or N/A). A MAY row is never FAIL: a broken probe mode reads ``absent``.
EXPECTED: dict[str, dict[str, str]] = {
    "broken-writes-input": {"RFC2-IN-001": _F},
    "broken-writes-home": {"RFC2-OUT-001": _F, "RFC2-OUT-003": _F},
    "broken-writes-tmp": {"RFC2-OUT-001": _F, "RFC2-OUT-003": _F},
    "broken-exit0-on-failure": {"RFC2-EXIT-002": _F},
    "broken-hides-needs-human": {"RFC2-EXIT-003": _F},
    "broken-leaves-daemon": {"HOLON-PROC-001": _F},
    # An engine that cannot start without a terminal does nothing under holon (the engine
    # never has one, with or without a terminal around holon-agent): every row that needs the
    # task done fails with it, and required-artifact validation cannot be observed.
    "broken-needs-tty": {
        "RFC2-HEAD-001": _F,
        "RFC2-HEAD-002": _F,
        "RFC2-IN-002": _F,
        "RFC2-EXIT-001": _F,
        "RFC2-V01-ART-001": _F,
        "RFC2-V01-PATCH-001": _F,
        "RFC2-V01-HOST-001": _F,
        "HOLON-PATCH-001": _F,
        "HOLON-HERM-001": _F,
        **dict.fromkeys(_ROOM_ROWS, _F),
        "RFC2-OUT-006": "WARN",
        "RFC2-PATCH-001": "WARN",
        "RFC2-PATCH-002": "WARN",
        "RFC2-RUN-005": "WARN",
    },
    "broken-prompts": {"RFC2-HEAD-002": _F},
    "broken-ignores-missing-credentials": {"RFC2-HEAD-003": _F},
    # The agent dies silently before the engine starts, in every run that is not a probe: no
    # manifest (every row that reads one fails), no work done (the task rows fail), and its
    # scratch dir stays in the run's TMPDIR (OUT-001/003). One defect, rightly many rows.
    "broken-no-manifest": {
        "RFC2-OUT-004": _F,
        "RFC2-OUT-001": _F,
        "RFC2-OUT-003": _F,
        "RFC2-IN-002": _F,
        "RFC2-EXIT-001": _F,
        "RFC2-EXIT-002": _F,
        "RFC2-EXIT-003": _F,
        "RFC2-HEAD-001": _F,
        "RFC2-HEAD-002": _F,
        "RFC2-V01-ART-001": _F,
        "RFC2-V01-PATCH-001": _F,
        "RFC2-V01-HOST-001": _F,
        "HOLON-SCHEMA-001": _F,
        "HOLON-PATCH-001": _F,
        "HOLON-HERM-001": _F,
        **dict.fromkeys(_ROOM_ROWS, _F),
        "RFC2-OUT-006": "WARN",
        "RFC2-OUT-007": "WARN",
        "RFC2-PATCH-001": "WARN",
        "RFC2-PATCH-002": "WARN",
        "RFC2-RUN-005": "WARN",
    },
    "broken-dirties-workspace": {"HOLON-PATCH-001": _F},
    # Its engine runs outside the room (the room holds only a client printing the engine's
    # output): the escape step reads the home and the sibling, writes beside them, reaches the
    # host's loopback, and, with no proxy in its environment, neither the denied host (so it
    # is never recorded) nor the allowed one. The task itself still succeeds.
    "broken-escapes-room": {
        "HOLON-ROOM-001": _F,
        "HOLON-ROOM-002": _F,
        "HOLON-ROOM-003": _F,
        "HOLON-ROOM-004": _F,
        "HOLON-ROOM-005": _F,
    },
    "broken-reads-user-env": {"HOLON-HERM-001": _F},
    "broken-passes-env": {"HOLON-HERM-001": _F},
    "broken-leaks-key": {"HOLON-KEY-001": _F},
    "broken-dumps-env": {"HOLON-SEC-001": _F},
    "broken-probe-calls-model": {"RFC2-PROBE-001": "absent"},
    "broken-probe-always-ready": {"RFC2-PROBE-002": _F},
    "broken-probe-not-ready": {
        "RFC2-PROBE-001": "absent",
        "RFC2-PROBE-003": _F,
        "RFC2-PROBE-004": _F,
    },
    # The committed workspace already holds the change, so the patch no longer applies to it.
    "broken-engine-commits": {
        "RFC2-RUN-008": _F,
        "RFC2-V01-PATCH-001": _F,
        "RFC2-OUT-006": "WARN",
        "RFC2-PATCH-001": "WARN",
    },
}
#: Broken adapter -> the requirement it was written to break.
TARGETS = {
    name: next((r for r, o in rows.items() if o == _F), next(iter(rows)))
    for name, rows in EXPECTED.items()
}
