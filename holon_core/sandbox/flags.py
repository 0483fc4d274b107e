"""``--sandbox on|off`` and ``--allow-host HOST[:PORT]`` for every command that starts a run
(here, not in ``cli/``, because serve mode's parser sits below the command line).

``holon run``, ``holon solve``, ``holon batch``, ``holon-agent`` and ``holon-agent serve`` take
them; each becomes the variable the run reads (``HOLON_SANDBOX``, ``HOLON_ALLOW_HOSTS``), so a
flag and its variable can never mean two things, and the host commands hand them on to
``holon-agent`` like every ``HOLON_*`` setting (docs/sandbox.md).
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping

from holon_core.sandbox.policy import ALLOW_VARIABLE, split_hosts
from holon_core.sandbox.setting import MODES, VARIABLE


def add_sandbox_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--sandbox",
        choices=MODES,
        help="run the engine in holon's room (on, the default: its own files, no route out "
        "but the model and the allowed hosts) or as the user (off); else HOLON_SANDBOX",
    )
    parser.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="HOST[:PORT]",
        help="a host the room's egress proxy lets through (repeat; *.DOMAIN for its "
        "subdomains; added to HOLON_ALLOW_HOSTS)",
    )


def sandbox_settings(args: argparse.Namespace, env: Mapping[str, str]) -> dict[str, str]:
    """The variables the flags set (nothing for a flag not given)."""
    out: dict[str, str] = {}
    if args.sandbox is not None:
        out[VARIABLE] = args.sandbox
    if args.allow_host:
        hosts = [*split_hosts(env.get(ALLOW_VARIABLE, "")), *args.allow_host]
        out[ALLOW_VARIABLE] = ",".join(dict.fromkeys(hosts))
    return out
