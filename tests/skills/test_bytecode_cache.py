"""A skill whose script ran from its own directory keeps its digest and stages no bytecode."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

from holon_core.engine.staging import copy_skills
from holon_core.skill.package import load_skill


def _skill(root: Path) -> Path:
    skill = root / "runs-scripts"
    (skill / "scripts").mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: runs-scripts\ndescription: has a script\n---\nRun scripts/tool.py\n",
        encoding="utf-8",
    )
    (skill / "scripts" / "tool.py").write_text("VALUE = 1\n", encoding="utf-8")
    (skill / "scripts" / "main.py").write_text("import tool\n", encoding="utf-8")
    return skill


def _documented_digest(skill: Path) -> str:
    """docs/skills.md's shell recipe, in Python."""
    lines = []
    for path in sorted(
        (p for p in skill.rglob("*") if p.is_file() and "__pycache__" not in p.parts),
        key=lambda p: p.relative_to(skill).as_posix().encode(),
    ):
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        lines.append(f"{digest}  {path.relative_to(skill).as_posix()}\n")
    return hashlib.sha256("".join(lines).encode()).hexdigest()


def test_bytecode_cache_is_not_part_of_the_package(tmp_path: Path) -> None:
    skill = _skill(tmp_path)
    before = load_skill(skill, "flag").sha256
    subprocess.run(
        [sys.executable, "scripts/main.py"],
        cwd=skill,
        env={"PYTHONPATH": str(skill / "scripts")},
        check=True,
    )
    assert list((skill / "scripts" / "__pycache__").glob("*.pyc")), "the script wrote no cache"

    loaded = load_skill(skill, "flag")
    assert loaded.sha256 == before == _documented_digest(skill)
    staged = copy_skills([loaded], tmp_path / "home" / "skills")
    staged_dir = staged[0].path
    assert staged_dir is not None
    assert sorted(p.relative_to(staged_dir).as_posix() for p in staged_dir.rglob("*")) == [
        "SKILL.md",
        "scripts",
        "scripts/main.py",
        "scripts/tool.py",
    ]
