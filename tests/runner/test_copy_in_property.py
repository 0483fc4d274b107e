"""Property: copying an input directory (``runner/copy_in.py``, as ``holon run`` does for
--context and --skill) never brings in a byte from outside it, whatever mix of files,
directories and links (inside, outside, dangling, chained, looping) the directory holds.
Either the copy refuses with an error naming a link that leaves the directory, or it is
exactly the directory's own regular files, with every kept link resolving inside the copy."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from holon_core.errors import InputError
from holon_core.runner.copy_in import Budget, copy_tree
from holon_core.testing.fuzz import FUZZ

NAMES = ["a", "b", "sub", "sub/c", "sub/deep/d", "e"]
OUTSIDE = "outside-secret"
# a link's target: another entry, the dir itself, up and out, an absolute outside path, nothing
TARGETS = st.sampled_from(["a", "sub", "sub/c", ".", "..", "../outside", "sub/../a", "nope"])
ENTRY = st.one_of(
    st.tuples(st.just("file"), st.binary(max_size=64)),
    st.tuples(st.just("dir"), st.just(b"")),
    st.tuples(st.just("link"), TARGETS),
    st.tuples(st.just("abs-out"), st.just(b"")),
)


def _build(root: Path, plan: dict[str, tuple[str, object]]) -> None:
    (root.parent / "outside").write_text(OUTSIDE)
    for name, (kind, value) in sorted(plan.items()):
        path = root / name
        if any(p.is_symlink() or p.is_file() for p in [*path.parents][: -len(root.parts)]):
            continue  # a parent became a file or a link: skip this entry
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists() or path.is_symlink():
            continue
        if kind == "file":
            assert isinstance(value, bytes)
            path.write_bytes(value)
        elif kind == "dir":
            path.mkdir()
        elif kind == "link":
            path.symlink_to(str(value))
        else:
            path.symlink_to(root.parent / "outside")


def _leaves_root(link: Path, root: Path) -> bool:
    return not Path(os.path.realpath(link)).is_relative_to(root.resolve())


@FUZZ
@given(st.dictionaries(st.sampled_from(NAMES), ENTRY, max_size=6))
def test_copy_never_brings_in_outside_content(plan: dict[str, tuple[str, object]]) -> None:
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        src, dest = tmp / "src", tmp / "dest"
        src.mkdir()
        _build(src, plan)
        links = [p for p in src.rglob("*") if p.is_symlink()]
        escaping = [p for p in links if _leaves_root(p, src)]
        try:
            copy_tree(src, dest, Budget())
        except InputError as exc:
            assert escaping, f"refused a directory with no link out of it: {exc}"
            assert any(p.name in str(exc) for p in escaping)
            return
        assert not escaping
        for path in dest.rglob("*"):
            real = Path(os.path.realpath(path))
            assert real.is_relative_to(dest.resolve()), f"{path} leads out of the copy"
            if path.is_file() and not path.is_symlink():
                assert path.read_bytes() == (src / path.relative_to(dest)).read_bytes()
                assert OUTSIDE.encode() not in path.read_bytes()
        originals = {
            p.relative_to(src) for p in src.rglob("*") if p.is_file() and not p.is_symlink()
        }
        copies = {
            p.relative_to(dest) for p in dest.rglob("*") if p.is_file() and not p.is_symlink()
        }
        assert copies == originals
