"""Writing a cassette: all of it in a temp dir beside the target, the final secret scan, then
one rename. A cassette is there whole or not at all: a scan that finds a secret, a full disk
or a bug leaves nothing behind (and an older cassette at the target untouched).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path

from holon_core.cassette.admit import target_problem
from holon_core.cassette.format import (
    BODIES_DIR,
    CALLS_FILE,
    DIFF_FILE,
    INFO_FILE,
    BodyStore,
    CassetteError,
    CassetteInfo,
    RecordedCall,
    call_line,
    info_text,
)
from holon_core.cassette.scrub import Scrubber, leftovers


def write_cassette(
    target: Path,
    *,
    info: CassetteInfo,
    calls: list[RecordedCall],
    store: BodyStore,
    diff: bytes,
    scrubber: Scrubber,
    split_secrets: Sequence[int] = (),
) -> None:
    """Write the cassette at ``target`` (replacing a cassette there), or raise
    :class:`CassetteError` leaving nothing when a secret would be recorded: found by the
    final scan, or streamed in pieces by calls ``split_secrets`` (their ``seq``)."""
    problem = target_problem(target)
    if problem is not None:
        raise CassetteError(f"cannot record a cassette at {target}: {problem}")
    if split_secrets:
        raise CassetteError(
            "no cassette was written: the answer of model call "
            + ", ".join(f"#{seq}" for seq in split_secrets)
            + " streamed a secret value of this run in pieces; remove the secret from what "
            "the engine can read, or run without --record"
        )
    # The info's free text (spec, error) is redacted like everything else.
    # (each string as decoded: a form escaped inside a JSON string is one the text misses)
    info = CassetteInfo.model_validate(scrubber.json(info.model_dump(mode="json", by_alias=True)))
    made = _make_parents(target.parent)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        (staging / INFO_FILE).write_text(info_text(info))
        (staging / CALLS_FILE).write_text("".join(call_line(c) + "\n" for c in calls))
        (staging / DIFF_FILE).write_bytes(diff)
        store.flush(staging / BODIES_DIR)
        found = leftovers(staging, scrubber, verbatim=(DIFF_FILE,))
        if found:
            raise CassetteError(
                "no cassette was written: a secret would have been recorded in "
                + ", ".join(found)
                + "; remove it from the task (a secret in diff.patch is the workspace's own "
                "change) or run without --record"
            )
        _move_into_place(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        for directory in made:  # innermost first; only the ones made here, still empty
            with contextlib.suppress(OSError):
                directory.rmdir()
        raise


def _make_parents(parent: Path) -> list[Path]:
    """Create ``parent`` and its missing ancestors; the ones made, innermost first."""
    missing = []
    while not parent.exists():
        missing.append(parent)
        parent = parent.parent
    for directory in reversed(missing):
        directory.mkdir()
    return missing


def _move_into_place(staging: Path, target: Path) -> None:
    staging.chmod(0o755)  # mkdtemp made it 0700
    if not target.exists():
        staging.rename(target)
        return
    old = target.with_name(f".{target.name}.old-{os.getpid()}")
    target.rename(old)
    try:
        staging.rename(target)
    except OSError:
        old.rename(target)
        raise
    shutil.rmtree(old, ignore_errors=True)
