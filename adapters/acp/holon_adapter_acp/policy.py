"""The headless permission policy: how the bridge answers ``session/request_permission``.

A holon run is unattended and sandboxed by its snapshot: the direct adapters start their
engines with every tool allowed in the workspace (``--yolo``, ``permission: allow``), and the
profiles set the agents' own no-prompt modes up front. A permission request that still arrives
is answered at once, never left pending (an unanswered request hangs the agent):

1. an ``allow_once`` option, else an ``allow_always`` one: the run allows what the agent's
   own no-prompt mode would (one-shot runs hold one session, so "always" reaches no further);
2. with ``HOLON_ACP_PERMISSION=reject``: a ``reject_once`` option, else ``reject_always``;
3. no option of the wanted kind: ``cancelled`` (the agent then treats the tool as refused).

After ``session/cancel`` every request is answered ``cancelled``, as ACP requires.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

POLICY_ENV = "HOLON_ACP_PERMISSION"
ALLOW = ("allow_once", "allow_always")
REJECT = ("reject_once", "reject_always")


def policy_from(env: Mapping[str, str]) -> str:
    """``allow`` (the default) or ``reject``; anything else is refused by the adapter."""
    return env.get(POLICY_ENV, "").strip().lower() or "allow"


def choose(policy: str, options: Sequence[tuple[str, str]]) -> str | None:
    """The option id to answer with, from ``(option_id, kind)`` pairs; None: cancelled."""
    for kind in ALLOW if policy == "allow" else REJECT:
        for option_id, option_kind in options:
            if option_kind == kind:
                return option_id
    return None
