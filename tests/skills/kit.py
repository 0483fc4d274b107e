"""Skill packages for tests, and `holon` / `holon-agent` runs in a hermetic user environment."""

from __future__ import annotations

import hashlib
import io
import json
import subprocess
import sys
import tarfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tests.runner.kit import Ran, base_env


def make_skill(
    root: Path,
    name: str,
    *,
    version: str | None = None,
    body: str = "Steps.\n",
    extra: str = "",
    dirname: str | None = None,
) -> Path:
    """``root/<dirname or name>/SKILL.md`` (plus ``notes.md``), returned."""
    skill = root / (dirname or name)
    skill.mkdir(parents=True, exist_ok=True)
    front = f"name: {name}\ndescription: Test skill {name}\n"
    if version:
        front += f"version: {version}\n"
    (skill / "SKILL.md").write_text(f"---\n{front}{extra}---\n{body}", encoding="utf-8")
    (skill / "notes.md").write_text(f"notes of {name} {version}\n", encoding="utf-8")
    return skill


def user_env(tmp: Path) -> dict[str, str]:
    """A user with an empty home, config and data dirs of their own."""
    env = base_env(tmp)
    env["XDG_CONFIG_HOME"] = str(tmp / "config")
    env["XDG_DATA_HOME"] = str(tmp / "data")
    return env


def holon(
    tmp: Path,
    args: Sequence[str],
    env: Mapping[str, str] | None = None,
    *,
    cwd: Path | None = None,
    timeout: float = 120,
) -> Ran:
    """The real `holon` command (as `python -m holon_core.cli.main`)."""
    done = subprocess.run(
        [sys.executable, "-m", "holon_core.cli.main", *args],
        env={**user_env(tmp), **(env or {})},
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    return Ran(done.returncode, done.stdout, done.stderr)


def manifest_of(ran: Ran) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(Path(ran.json["paths"]["manifest"]).read_text())
    return data


def skill_rows(manifest: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(name, layer) of every skill the run used, in order."""
    return [(s["name"], s["source"]) for s in manifest["metadata"]["skills"]]


def tar_gz(members: dict[str, bytes]) -> bytes:
    """A gzipped tar holding ``members`` (name -> bytes), names taken as given: a skill archive."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def publish(root: Path, name: str, data: bytes) -> str:
    """Write an archive as ``root/name``; its sha256 (the pin a skill reference carries)."""
    (root / name).write_bytes(data)
    return hashlib.sha256(data).hexdigest()
