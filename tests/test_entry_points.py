"""holon's own entry-point reader gives what importlib.metadata gives (same entries, order,
distribution names and versions, first distribution of a name wins), and defers to it when
sys.path holds something other than directories."""

from __future__ import annotations

import os
import zipfile
from importlib.metadata import entry_points as metadata_entry_points
from pathlib import Path

import pytest

from holon_core.hooks.entry_points import EntryPointRef, _plain_path, entry_points


def _expected(group: str) -> list[EntryPointRef]:
    found = metadata_entry_points(group=group)
    dists = [(e.dist.name, e.dist.version) if e.dist else (None, None) for e in found]
    return [EntryPointRef(e.name, e.value, *dist) for e, dist in zip(found, dists, strict=True)]


def _dist(root: Path, dirname: str, meta: str, entry_points_txt: str | None) -> None:
    info = root / dirname
    info.mkdir(parents=True)
    meta_file = "PKG-INFO" if dirname.endswith(".egg-info") else "METADATA"
    (info / meta_file).write_text(meta + "\nA long description: Name: not-this\n")
    if entry_points_txt is not None:
        (info / "entry_points.txt").write_text(entry_points_txt)


@pytest.mark.parametrize("group", ["holon", "console_scripts", "pytest11"])
def test_installed_environment_matches_importlib(group: str) -> None:
    assert _plain_path() is not None  # the fast path is the one exercised here
    assert entry_points(group) == _expected(group)


def test_layout_rules_match_importlib(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    text = (
        "# a comment\n[console_scripts]\ntool = pkg.cli:main\n\n"
        "[holon]\n  beta = pkg.plugin:thing.attr [extra]\nalpha=pkg.other\n"
    )
    _dist(
        first, "Foo_Bar-1.0.dist-info", "Metadata-Version: 2.1\nName: Foo-Bar\nVersion: 1.0", text
    )
    _dist(first, "legacy.egg-info", "Metadata-Version: 1.0\nname: legacy\nversion: 0.3", text)
    _dist(first, "no_entry_points-1.0.dist-info", "Name: no-entry-points\nVersion: 1.0", None)
    shadowed = "[holon]\nshadowed = pkg.never\n"
    _dist(second, "foo.bar-2.0.dist-info", "Name: foo.bar\nVersion: 2.0", shadowed)
    _dist(second, "zeta-0.1.dist-info", "Name: zeta\nVersion: 0.1", "[holon]\nzeta = zeta\n")
    monkeypatch.setattr("sys.path", [str(first), str(tmp_path / "missing"), str(second)])
    got = entry_points("holon")
    assert got == _expected("holon")
    rows = [(e.name, e.value, e.dist_name, e.dist_version) for e in got]
    assert sorted(rows) == [
        ("alpha", "pkg.other", "Foo-Bar", "1.0"),
        ("alpha", "pkg.other", "legacy", "0.3"),
        ("beta", "pkg.plugin:thing.attr [extra]", "Foo-Bar", "1.0"),
        ("beta", "pkg.plugin:thing.attr [extra]", "legacy", "0.3"),
        ("zeta", "zeta", "zeta", "0.1"),
    ]


def test_a_zip_on_sys_path_defers_to_importlib(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    archive = tmp_path / "plugins.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("zipped-1.0.dist-info/METADATA", "Name: zipped\nVersion: 1.0\n")
        zf.writestr("zipped-1.0.dist-info/entry_points.txt", "[holon]\nzipped = zipped_mod\n")
    monkeypatch.setattr("sys.path", [str(archive)])
    assert _plain_path() is None
    assert entry_points("holon") == [EntryPointRef("zipped", "zipped_mod", "zipped", "1.0")]


def test_load_follows_module_and_attribute_path() -> None:
    assert EntryPointRef("x", "os.path:join").load() is os.path.join
    assert EntryPointRef("x", "os : path.join [extra]").load() is os.path.join
    assert EntryPointRef("x", "os.path").load() is os.path
