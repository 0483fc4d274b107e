"""Every distribution is ready for an index: license file, classifiers, project URLs,
keywords, a long description without repository-relative links; holon-core's sdist holds
holon-core only; the README's install-from-wheels command works (offline: the locked wheels from
``make wheelhouse`` stand in for the index, with an empty uv cache)."""

from __future__ import annotations

import email
import json
import re
import subprocess
import sys
import tarfile
import zipfile
from email.message import Message
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DISTRIBUTIONS = {
    "holon-core": REPO,
    "holon-adapter-claude": REPO / "adapters" / "claude",
    "holon-adapter-codex": REPO / "adapters" / "codex",
    "holon-adapter-gemini": REPO / "adapters" / "gemini",
    "holon-adapter-opencode": REPO / "adapters" / "opencode",
    "holon-conformance": REPO / "conformance",
}
#: A Markdown link or image whose target is not absolute: it breaks on an index's page.
RELATIVE_LINK = re.compile(r"!?\[[^\]]*\]\((?!https?://|mailto:|#)([^)]+)\)")


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory, uv_binary: str) -> Path:
    """``make dist``'s build, offline, into a temp dir."""
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run(
        [uv_binary, "build", "--offline", "-q", "--all-packages", "--out-dir", str(out)],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return out


def file_name(distribution: str) -> str:
    return distribution.replace("-", "_")


def wheel_metadata(dist: Path, distribution: str) -> tuple[Message, zipfile.ZipFile]:
    (wheel,) = dist.glob(f"{file_name(distribution)}-*.whl")
    archive = zipfile.ZipFile(wheel)
    (meta,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
    return email.message_from_bytes(archive.read(meta)), archive


@pytest.mark.parametrize("distribution", sorted(DISTRIBUTIONS))
def test_wheel_metadata_is_ready_for_an_index(dist: Path, distribution: str) -> None:
    meta, archive = wheel_metadata(dist, distribution)
    assert meta["License-Expression"] == "MIT"
    licenses = [n for n in archive.namelist() if n.endswith(".dist-info/licenses/LICENSE")]
    assert len(licenses) == 1
    text = archive.read(licenses[0]).decode()
    assert text.startswith("MIT License") and "Holon Contributors" in text
    assert (DISTRIBUTIONS[distribution] / "LICENSE").read_text() == text
    classifiers = meta.get_all("Classifier") or []
    assert "Programming Language :: Python :: 3.11" in classifiers
    assert any(c.startswith("Development Status ::") for c in classifiers)
    urls = dict(u.split(", ", 1) for u in meta.get_all("Project-URL") or [])
    assert {"Homepage", "Source", "Issues"} <= set(urls)
    assert all(u.startswith("https://") for u in urls.values())
    assert meta["Keywords"] and "rfc-0002" in meta["Keywords"]
    assert meta["Description-Content-Type"] == "text/markdown"
    description = meta.get_payload()
    assert isinstance(description, str) and len(description) > 200
    assert RELATIVE_LINK.findall(description) == []


def test_the_link_check_can_fail() -> None:
    assert RELATIVE_LINK.findall("see [the doc](docs/x.md) and [site](https://a.b)") == [
        "docs/x.md"
    ]


def test_conformance_depends_on_a_bounded_holon_core(dist: Path) -> None:
    meta, _ = wheel_metadata(dist, "holon-conformance")
    (core,) = [r for r in meta.get_all("Requires-Dist") or [] if r.startswith("holon-core")]
    assert ">=0.1.0" in core and "<0.2" in core


def test_holon_core_sdist_holds_holon_core_only(dist: Path) -> None:
    (sdist,) = dist.glob("holon_core-*.tar.gz")
    with tarfile.open(sdist) as archive:
        names = archive.getnames()
    top = {n.split("/", 2)[1] for n in names if n.count("/") >= 1}
    assert top <= {"holon_core", "skills", "README.md", "LICENSE", "pyproject.toml",
                   "PKG-INFO", ".gitignore"}, top  # fmt: skip
    assert {"holon_core", "skills", "LICENSE"} <= top
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]


def test_readme_install_from_built_wheels(
    dist: Path,
    uv_binary: str,
    tmp_path: Path,
    offline_install: tuple[list[str], dict[str, str]],
) -> None:
    """``uv tool install holon-core --with holon-adapter-claude --find-links dist``.

    The index is replaced by the wheelhouse and the cache is empty: the install proves the
    wheels' own metadata resolves, not what an earlier run left behind.
    """
    options, offline_env = offline_install
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "UV_TOOL_DIR": str(tmp_path / "tools"),
        "UV_TOOL_BIN_DIR": str(tmp_path / "bin"),
        "UV_PYTHON": sys.executable,
        **offline_env,
    }
    argv = [uv_binary, "tool", "install", *options, "holon-core"]
    argv += ["--with", "holon-adapter-claude", "--find-links", str(dist)]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    plugins = subprocess.run(
        [str(tmp_path / "bin" / "holon"), "plugins", "--json"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert plugins.returncode == 0, plugins.stderr
    found = {p["distribution"] for p in json.loads(plugins.stdout)}
    assert {"holon-core", "holon-adapter-claude"} <= found
    assert (tmp_path / "bin" / "holon-agent").is_file()
