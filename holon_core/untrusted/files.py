"""Writing holon's own files in a directory the engine could also write to.

The engine runs with write access to the output dir, so by the time holon writes
``manifest.json``, ``summary.md`` or an evidence file, that name may hold a directory, a
symlink pointing anywhere (the workspace, /etc) or a hard link to someone's file, and the
output dir itself may have been renamed and replaced by a link. So holon opens the output dir
once, before the engine starts, and holds that descriptor (:class:`HeldDir`): every later
write is relative to it (``dir_fd``), opens with ``O_NOFOLLOW`` and creates a fresh inode
(temp file + rename, or unlink + ``O_EXCL``), never writing into whatever is at the name.
Its files get ordinary permissions (0666 minus the umask), not ``mkstemp``'s 0600, so a
runner reading as another user can open them.

Reading a file the engine could have planted goes through :func:`read_regular`: no link, no
FIFO or device, a bounded read.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import IO


def _read_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


FILE_MODE = 0o666 & ~_read_umask()
DIR_MODE = 0o777 & ~_read_umask()
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
#: errno values meaning "there is no room left": the record ends ``disk_full``.
NO_SPACE = frozenset({errno.ENOSPC, errno.EDQUOT})


def is_no_space(exc: BaseException) -> bool:
    """True when ``exc`` (or what caused it) is a full disk or an exhausted quota."""
    current: BaseException | None = exc
    while current is not None:
        if isinstance(current, OSError) and current.errno in NO_SPACE:
            return True
        current = current.__cause__ or current.__context__
    return False


def read_regular(
    path: Path | str, limit: int, *, dir_fd: int | None = None, offset: int = 0
) -> bytes | None:
    """At most ``limit + 1`` bytes of the regular file at ``path``, from ``offset``.

    For a file someone else (the engine) may have planted: the last component is never
    followed (``O_NOFOLLOW``), the open never blocks (``O_NONBLOCK``: a FIFO would hang it)
    and the type is checked on the open descriptor, so a FIFO, device or directory swapped in
    cannot feed an endless stream. None when it is absent, a link, not a regular file or
    unreadable. A caller tells "over the limit" by ``len(result) > limit``: one byte past the
    limit is read for that. ``dir_fd`` makes a relative ``path`` relative to that directory.
    """
    try:
        fd = os.open(path, _READ_FLAGS, dir_fd=dir_fd)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        if offset:
            os.lseek(fd, offset, os.SEEK_SET)
        chunks: list[bytes] = []
        left = limit + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


class HeldDir:
    """A directory holon opened itself; writes go through its descriptor, never its path."""

    def __init__(self, fd: int, path: Path, link_identity: tuple[int, int]) -> None:
        self.fd = fd
        self.path = path
        st = os.fstat(fd)
        self.identity = (st.st_dev, st.st_ino)
        self.link_identity = link_identity
        self.mode = stat.S_IMODE(st.st_mode)

    @classmethod
    def open(cls, path: Path) -> HeldDir:
        """Open ``path`` (a directory; a link the user gave is followed, once, now)."""
        link = os.lstat(path)
        fd = os.open(path, _DIR_FLAGS)
        return cls(fd, path, (link.st_dev, link.st_ino))

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self.fd)

    def replaced(self) -> bool:
        """True when ``path`` no longer names the directory this descriptor holds."""
        try:
            st, link = self.path.stat(), self.path.lstat()
        except OSError:
            return True
        return (st.st_dev, st.st_ino) != self.identity or (
            link.st_dev,
            link.st_ino,
        ) != self.link_identity

    @property
    def view(self) -> Path:
        """A path that reaches the held directory even if its name was swapped (Linux /proc)."""
        proc = Path(f"/proc/self/fd/{self.fd}")
        return proc if proc.is_dir() else self.path

    def restore_access(self) -> str | None:
        """Give the owner rwx back if someone took it; returns a note saying so, else None."""
        mode = stat.S_IMODE(os.fstat(self.fd).st_mode)
        if mode & 0o700 == 0o700:
            return None
        os.fchmod(self.fd, mode | 0o700)
        return f"{self.path} was mode {mode:04o}; holon restored its owner's rwx to write there"

    def lstat(self, name: str) -> os.stat_result | None:
        try:
            return os.stat(name, dir_fd=self.fd, follow_symlinks=False)
        except FileNotFoundError:
            return None

    def remove(self, name: str) -> None:
        """Remove a file, a link (not its target) or a directory tree named ``name``."""
        st = self.lstat(name)
        if st is None:
            return
        if stat.S_ISDIR(st.st_mode):
            shutil.rmtree(name, dir_fd=self.fd)
        else:
            os.unlink(name, dir_fd=self.fd)

    def subdir(self, name: str) -> HeldDir:
        """The real directory ``name`` inside, made if missing, replacing a link or a file."""
        for _attempt in range(3):
            try:
                fd = os.open(name, _DIR_FLAGS | os.O_NOFOLLOW, dir_fd=self.fd)
            except FileNotFoundError:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(name, DIR_MODE, dir_fd=self.fd)
                continue
            except OSError as exc:
                if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
                    raise
                self.remove(name)  # a symlink or a file where holon's directory goes
                continue
            st = os.fstat(fd)
            return HeldDir(fd, self.path / name, (st.st_dev, st.st_ino))
        raise OSError(errno.EEXIST, f"cannot make a directory at {self.path / name}")

    def open_new(self, name: str) -> IO[str]:
        """A fresh text file at ``name`` for streaming (whatever was there is removed first)."""
        for _attempt in range(3):
            self.remove(name)
            try:
                fd = os.open(name, _NEW_FILE, FILE_MODE, dir_fd=self.fd)
            except FileExistsError:
                continue
            return os.fdopen(fd, "w", encoding="utf-8", buffering=1)
        raise OSError(errno.EEXIST, f"cannot create {self.path / name}")

    @contextlib.contextmanager
    def replacing(self, name: str) -> Iterator[IO[bytes]]:
        """Write a temp file, then rename it over ``name`` (a link or directory there goes)."""
        # os.urandom is what secrets.token_hex reads; secrets would import hashlib (OpenSSL)
        tmp = f".holon-{name}-{os.urandom(4).hex()}"
        fd = os.open(tmp, _NEW_FILE, FILE_MODE, dir_fd=self.fd)
        try:
            with os.fdopen(fd, "wb") as handle:
                yield handle
            os.chmod(tmp, FILE_MODE, dir_fd=self.fd, follow_symlinks=False)
            existing = self.lstat(name)
            if existing is not None and stat.S_ISDIR(existing.st_mode):
                shutil.rmtree(name, dir_fd=self.fd)
            os.replace(tmp, name, src_dir_fd=self.fd, dst_dir_fd=self.fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=self.fd)
            raise

    def write_atomic(self, name: str, data: str | bytes) -> None:
        """Replace whatever is at ``name`` with ``data``, atomically."""
        payload = data.encode("utf-8") if isinstance(data, str) else data
        with self.replacing(name) as handle:
            handle.write(payload)


def open_up(top: Path) -> None:
    """Engines leave read-only dirs behind: give the owner rwx on ``top`` and every real dir
    below it (top-down, each opened before it is entered; links are never followed)."""
    if top.is_symlink() or not top.is_dir():
        return
    _owner_rwx(top)
    for dirpath, dirnames, _files in os.walk(top):
        for sub in dirnames:
            _owner_rwx(Path(dirpath) / sub)


def _owner_rwx(path: Path) -> None:
    with contextlib.suppress(OSError):
        st = path.lstat()
        if stat.S_ISDIR(st.st_mode) and st.st_mode & stat.S_IRWXU != stat.S_IRWXU:
            path.chmod(st.st_mode | stat.S_IRWXU)


def walk_entries(root: Path) -> Iterator[Path]:
    """Every file and link under ``root``; directories are entered but links never followed."""
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath)
        yield from (here / name for name in filenames)
        yield from (here / name for name in dirnames if (here / name).is_symlink())
