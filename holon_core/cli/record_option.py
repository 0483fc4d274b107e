"""``--record DIR`` of ``holon run`` and ``holon solve``: where holon-agent writes the run's
cassette (docs/cassettes.md). Resolved against the caller's working directory here, since the
agent runs elsewhere, and checked before the run so a bad DIR costs no model calls."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from holon_core.errors import InputError


def add_record_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--record",
        metavar="DIR",
        help="record the run's model calls as a cassette in DIR, replayable offline "
        "(HOLON_RECORD; docs/cassettes.md)",
    )


def record_option(text: str | None, *, container: bool = False) -> Path | None:
    """The cassette dir of ``--record``, else ``HOLON_RECORD``, as an absolute path."""
    raw = text if text is not None else (os.environ.get("HOLON_RECORD") or "").strip() or None
    if raw is None:
        return None
    from holon_core.cassette.admit import target_problem

    target = Path(raw).expanduser().absolute()
    if container:
        raise InputError(
            "--record (HOLON_RECORD) does not work with --container yet: the cassette is "
            "written by holon-agent inside the container",
            hint="record without --container",
        )
    problem = target_problem(target)
    if problem is not None:
        raise InputError(
            f"--record: no cassette can be written at {target}: {problem}",
            hint="give --record a new or empty directory, or an earlier cassette to replace",
        )
    return target
