"""Read ``spec.yaml`` safely: a regular UTF-8 file of bounded size, never blocking.

Kept free of pydantic: ``holon-agent --probe`` reads the spec through it too (its CPU goal:
5x ``python -c pass``, ``bench/probe_cpu.py``).
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from holon_core.errors import SpecError

#: A spec is a few KiB; past this it is refused before parsing (YAML parses at ~300 KB/s).
MAX_SPEC_BYTES = 1024 * 1024


def read_spec_text(path: Path) -> str:
    """The spec's text: a regular UTF-8 file of at most :data:`MAX_SPEC_BYTES`.

    Opened without blocking (a FIFO would hang the read) and checked on the open descriptor,
    so a device or a file swapped in between cannot feed an endless stream.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            raise SpecError(
                f"{path} does not exist",
                hint="put the task spec at INPUT/spec.yaml (see `holon schema spec`)",
            ) from None
        raise SpecError(
            f"{path} cannot be read: {exc.strerror}",
            hint="check the permissions of the input directory and the spec",
        ) from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise SpecError(f"{path} is not a regular file", hint="put the task spec in a plain file")
    with os.fdopen(fd, "rb") as handle:
        if info.st_size > MAX_SPEC_BYTES:
            raise SpecError(
                f"{path} is {info.st_size} bytes; the limit is {MAX_SPEC_BYTES} bytes",
                hint="keep the spec short and put long material in context files",
            )
        try:
            raw = handle.read(MAX_SPEC_BYTES + 1)
        except OSError as exc:
            raise SpecError(f"{path} cannot be read: {exc.strerror}", hint="check it") from None
    if len(raw) > MAX_SPEC_BYTES:  # it grew while we read
        raise SpecError(
            f"{path} is over the limit of {MAX_SPEC_BYTES} bytes",
            hint="keep the spec short and put long material in context files",
        )
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SpecError(
            f"{path} is not UTF-8 text (byte {exc.start})", hint="save the spec as UTF-8"
        ) from None
