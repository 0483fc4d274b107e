"""Writing holon's own files in a directory the engine could also write to.

The engine runs with write access to the output dir, so by the time holon writes
``manifest.json``, ``summary.md`` or an evidence file, that name may hold a directory or a
symlink pointing anywhere (the workspace, /etc). holon replaces whatever is there and never
follows a link, and its files get ordinary permissions (0666 minus the umask), not
``mkstemp``'s 0600, so a runner reading as another user can open them.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path


def _read_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


FILE_MODE = 0o666 & ~_read_umask()


def clear_path(path: Path) -> None:
    """Remove a file, a symlink (not its target) or a directory tree at ``path``."""
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)
    elif path.exists():  # a fifo, a socket
        path.unlink()


def real_dir(path: Path, root: Path) -> Path:
    """``path`` as a real directory inside ``root``, replacing a symlink put in its way."""
    if path.is_symlink() or (path.exists() and not path.is_dir()):
        clear_path(path)
    path.mkdir(parents=True, exist_ok=True)
    if not path.resolve().is_relative_to(root.resolve()):
        raise OSError(f"{path} resolves outside {root}")
    return path


def write_atomic(path: Path, data: str | bytes, root: Path) -> None:
    """Replace whatever is at ``path`` (below ``root``) with ``data``, atomically."""
    parent = real_dir(path.parent, root)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(prefix=f".holon-{path.name}-", dir=parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
        publish(Path(tmp), path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def publish(tmp: Path, path: Path) -> None:
    """Give a finished temp file its final mode and name (replacing a link or a directory)."""
    tmp.chmod(FILE_MODE)
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    tmp.replace(path)
