"""``--cassette DIR`` and ``--cassette-mode strict|lenient`` of ``holon run`` and ``holon solve``:
replay a recorded cassette instead of calling the model API (docs/cassettes.md).

The directory is resolved against the caller's working directory (the agent runs elsewhere)
and read before the run, so a wrong one costs nothing; the agent gets it as
``HOLON_CASSETTE`` / ``HOLON_CASSETTE_MODE``, the variables ``holon-agent --cassette`` sets.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from pathlib import Path

from holon_core.errors import InputError

MODES = ("strict", "lenient")


def add_cassette_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--cassette",
        metavar="DIR",
        help="replay the cassette in DIR: the real engine runs, the model's answers come from "
        "the recording, no key and no network needed (HOLON_CASSETTE; docs/cassettes.md)",
    )
    parser.add_argument(
        "--cassette-mode",
        metavar="MODE",
        help="strict (default): a request not recorded fails the run replay_mismatch; "
        "lenient: it gets the nearest recorded answer and a warning (HOLON_CASSETTE_MODE)",
    )


def cassette_settings(
    args: argparse.Namespace, env: Mapping[str, str], *, container: bool = False
) -> dict[str, str]:
    """``HOLON_CASSETTE`` (absolute) and ``HOLON_CASSETTE_MODE`` for the agent, from the flags
    or the caller's variables; empty when no cassette is replayed."""
    raw = args.cassette if args.cassette is not None else (env.get("HOLON_CASSETTE") or "")
    mode = args.cassette_mode or env.get("HOLON_CASSETTE_MODE") or "strict"
    if mode not in MODES:
        raise InputError(
            f"--cassette-mode: {mode!r} is not a mode", hint="use strict (default) or lenient"
        )
    if not raw.strip():
        if args.cassette_mode is not None:
            raise InputError("--cassette-mode needs --cassette DIR", hint="add --cassette DIR")
        return {}
    if container:
        raise InputError(
            "--cassette (HOLON_CASSETTE) does not work with --container yet: the cassette "
            "would have to be mounted into the container",
            hint="replay without --container",
        )
    root = Path(raw.strip()).expanduser().absolute()
    from holon_core.cassette.format import read_info

    read_info(root)  # a CassetteError (invalid_input) names the problem
    return {"HOLON_CASSETTE": str(root), "HOLON_CASSETTE_MODE": mode}
