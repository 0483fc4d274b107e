"""Copying the user's inputs (context, prompts, skills) into a run, and nothing else.

A skill or context directory can come from anyone. A link in it may point at ``~/.ssh`` or
``/etc/shadow``, and a link to ``/dev/zero`` or a FIFO would fill the disk or hang the run.
So a copy never leaves its root: a link whose target lies inside the root is kept as a
relative link (it resolves inside the copy), one pointing outside is refused with its name;
only regular files and directories are copied (FIFOs, sockets and devices are refused), and
the whole input is capped (:data:`MAX_INPUT_BYTES`, :data:`MAX_INPUT_FILES`).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from holon_core.errors import InputError

#: Everything ``holon run`` copies into one run's input dir (spec, prompts, context, skills).
MAX_INPUT_BYTES = 64 * 1024 * 1024
MAX_INPUT_FILES = 10_000
_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_CHUNK = 1 << 20


@dataclass
class Budget:
    """What is left of the input caps for this run."""

    bytes_left: int = MAX_INPUT_BYTES
    files_left: int = MAX_INPUT_FILES

    def charge(self, path: Path, size: int) -> None:
        if self.files_left <= 0:
            raise InputError(
                f"the run's input holds more than {MAX_INPUT_FILES} files (reached at {path})",
                hint="trim the context or skill directories; holon copies at most "
                f"{MAX_INPUT_FILES} files into a run",
            )
        if size > self.bytes_left:
            raise InputError(
                f"the run's input exceeds {MAX_INPUT_BYTES // (1024 * 1024)} MiB at {path} "
                f"({size / (1024 * 1024):.1f} MiB)",
                hint="trim the context or skill directories; holon copies at most "
                f"{MAX_INPUT_BYTES // (1024 * 1024)} MiB of input into a run",
            )
        self.files_left -= 1
        self.bytes_left -= size


def copy_file(source: Path, target: Path, budget: Budget) -> None:
    """Copy one regular file the user named (a link to it is followed: the user chose it)."""
    _copy_regular(source.resolve(), target, budget, shown=source)


def copy_tree(source: Path, target: Path, budget: Budget, *, within: Path | None = None) -> None:
    """Copy the directory ``source`` (a link to it is resolved once) into ``target``; links
    inside are kept only if they stay inside it. ``within``: where ``source`` must lie (a
    directory found next to a spec must not lead out of the spec's directory)."""
    real = source.resolve()
    if within is not None and not real.is_relative_to(within.resolve()):
        raise InputError(
            f"{source} links to {real}, outside {within.resolve()}",
            hint="holon copies nothing from outside an input directory; replace the link "
            "with a copy of what it points at",
        )
    target.mkdir(parents=True, exist_ok=True)
    _copy_dir(real, target, real, budget, shown=source)


def _copy_dir(real: Path, target: Path, root: Path, budget: Budget, shown: Path) -> None:
    with os.scandir(real) as entries:
        names = sorted(entry.name for entry in entries)
    for name in names:
        path, dest, label = real / name, target / name, shown / name
        st = os.lstat(path)
        if stat.S_ISLNK(st.st_mode):
            _copy_link(path, dest, root, label)
        elif stat.S_ISDIR(st.st_mode):
            dest.mkdir()
            _copy_dir(path, dest, root, budget, label)
        else:
            _copy_regular(path, dest, budget, shown=label)


def _copy_link(path: Path, dest: Path, root: Path, shown: Path) -> None:
    """Keep a link that stays inside ``root`` (as a relative link); refuse any other."""
    resolved = Path(os.path.realpath(path))
    if not (resolved == root or resolved.is_relative_to(root)):
        raise InputError(
            f"{shown} is a link to {path.readlink()}, outside {root}",
            hint="holon copies nothing from outside an input directory; replace the link "
            "with a copy of the file, or remove it",
        )
    if not resolved.exists():
        return  # a dangling link inside the directory: nothing to copy
    kind = resolved.stat().st_mode
    if not (stat.S_ISREG(kind) or stat.S_ISDIR(kind)):
        raise _special(shown, kind)
    dest.symlink_to(os.path.relpath(resolved, path.parent))


def _copy_regular(path: Path, dest: Path, budget: Budget, *, shown: Path) -> None:
    try:
        mode = os.lstat(path).st_mode
        if not stat.S_ISREG(mode):
            raise _special(shown, mode)
        fd = os.open(path, _READ)
    except OSError as exc:
        raise InputError(
            f"cannot read {shown}: {exc.strerror or exc}",
            hint="make the file readable, or remove it from the input",
        ) from exc
    with os.fdopen(fd, "rb") as handle:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _special(shown, st.st_mode)
        budget.charge(shown, st.st_size)
        os.set_blocking(fd, True)
        with dest.open("xb") as out:
            left = st.st_size
            while left > 0:  # never more than was charged, even if the file grows meanwhile
                chunk = handle.read(min(_CHUNK, left))
                if not chunk:
                    break
                out.write(chunk)
                left -= len(chunk)
        dest.chmod(stat.S_IMODE(st.st_mode) | stat.S_IRUSR)


def _special(shown: Path, mode: int) -> InputError:
    kind = (
        "a named pipe"
        if stat.S_ISFIFO(mode)
        else "a socket"
        if stat.S_ISSOCK(mode)
        else "a device"
        if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
        else "not a regular file"
    )
    return InputError(
        f"{shown} is {kind}; holon copies only regular files and directories into a run",
        hint="remove it from the input (or replace it with a regular file)",
    )
