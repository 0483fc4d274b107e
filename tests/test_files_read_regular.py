"""``read_regular``: the one bounded read of a file someone else may have planted."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from holon_core.untrusted.files import read_regular

if TYPE_CHECKING:
    from pathlib import Path


def test_reads_a_regular_file_and_tells_over_the_limit(tmp_path: Path) -> None:
    small = tmp_path / "small"
    small.write_bytes(b"12345")
    assert read_regular(small, 5) == b"12345"
    assert read_regular(small, 100) == b"12345"
    assert read_regular(small, 2, offset=1) == b"234"
    over = read_regular(small, 3)
    assert over == b"1234" and len(over) > 3  # limit + 1 bytes: over the limit
    assert read_regular(tmp_path / "missing", 10) is None
    (tmp_path / "empty").write_bytes(b"")
    assert read_regular(tmp_path / "empty", 10) == b""


def test_refuses_a_link_a_fifo_and_a_directory(tmp_path: Path) -> None:
    target = tmp_path / "target"
    target.write_bytes(b"secret")
    (tmp_path / "link").symlink_to(target)
    os.mkfifo(tmp_path / "fifo")  # no writer: a blocking open would hang here
    (tmp_path / "dir").mkdir()
    for name in ("link", "fifo", "dir"):
        assert read_regular(tmp_path / name, 100) is None, name


def test_reads_relative_to_a_dir_fd(tmp_path: Path) -> None:
    (tmp_path / "f").write_bytes(b"abc")
    (tmp_path / "l").symlink_to(tmp_path / "f")
    fd = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        assert read_regular("f", 10, dir_fd=fd) == b"abc"
        assert read_regular("l", 10, dir_fd=fd) is None
    finally:
        os.close(fd)
