"""The artifact inventory over arbitrary trees of files, dirs and links an engine could plant.

Property: every regular file is listed; a link is listed only when it resolves to a regular
file inside the output dir; nothing reached through a link out of the dir is ever listed.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from holon_core.record.manifest_writer import MANIFEST, inventory

NAMES = st.sampled_from(["a", "b", "c", "d.txt", ".holon-x", "evidence"])
KINDS = st.sampled_from(["file", "dir", "link_in", "link_out", "link_dir_out", "dangling"])
ENTRIES = st.lists(st.tuples(st.lists(NAMES, min_size=1, max_size=3), KINDS), max_size=12)


def _plant(root: Path, outside: Path, parts: list[str], kind: str) -> None:
    path = root.joinpath(*parts)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if kind == "file":
            path.write_text("x")
        elif kind == "dir":
            path.mkdir()
        elif kind == "link_in":
            path.symlink_to(os.path.relpath(root / "d.txt", path.parent))
        elif kind == "link_out":
            path.symlink_to(outside / "secret.txt")
        elif kind == "link_dir_out":
            path.symlink_to(outside)
        else:
            path.symlink_to(root / "nowhere")
    except OSError:
        pass  # a name already taken by another kind, or a parent that is a file or link


@settings(max_examples=150, deadline=None)
@given(ENTRIES)
def test_inventory_lists_files_and_never_follows_a_link_out(entries):
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        root, outside = base / "output", base / "outside"
        root.mkdir()
        outside.mkdir()
        (outside / "secret.txt").write_text("not the run's")
        (outside / "inner.txt").write_text("not the run's")
        for parts, kind in entries:
            _plant(root, outside, parts, kind)
        listed = set(inventory(root)) - {MANIFEST}
        real_root = root.resolve()
        for rel in listed:
            target = (root / rel).resolve()
            assert target.is_relative_to(real_root), rel
            assert target.is_file(), rel
            assert not any(p.is_symlink() for p in (root / rel).parents if p != root), rel
        for dirpath, dirnames, filenames in os.walk(root):
            for name in filenames + dirnames:
                path = Path(dirpath, name)
                rel = path.relative_to(root).as_posix()
                if path.is_file() and not path.is_symlink() and not rel.startswith(".holon-"):
                    assert rel in listed, rel
