"""A spec skill pinned as an archive (``x.tar.gz#sha256=...``) that requires a variable: the
probe and ``holon run`` unpack it to read its ``requires.env``, pass the variable, and leave
nothing behind in the caller's ``TMPDIR``."""

from __future__ import annotations

import hashlib
import tarfile
from pathlib import Path

from holon_core.testing import make_task, run_agent
from tests.runner.kit import holon_run, make_workspace, write_task

VALUE = "wren-copper-77310"
SKILL_MD = "---\nname: pub\ndescription: d\nrequires:\n  env: [PUB_PHRASE]\n---\nb\n"


def _archive(folder: Path) -> str:
    """``folder/pub.tar.gz`` holding the skill; its pinned reference relative to ``folder``."""
    src = folder / "src" / "pub"
    src.mkdir(parents=True)
    (src / "SKILL.md").write_text(SKILL_MD, encoding="utf-8")
    archive = folder / "pub.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(src, arcname="pub")
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()
    return f"{archive.name}#sha256={digest}"


def test_probe_reads_an_archive_skills_requirement_without_leaving_scratch(tmp_path: Path) -> None:
    task = make_task(tmp_path / "t", replay=[])
    ref = _archive(task.input)
    spec = task.spec.read_text(encoding="utf-8").replace("name: test", f"skills: ['{ref}']")
    task.spec.write_text(spec, encoding="utf-8")
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    missing = run_agent(task, args=["--probe"], env={"TMPDIR": str(scratch)})
    assert missing.exit_code == 1, missing.stderr
    assert "skill pub requires PUB_PHRASE, which is not set" in missing.stderr
    ok = run_agent(task, args=["--probe"], env={"TMPDIR": str(scratch), "PUB_PHRASE": VALUE})
    assert ok.exit_code == 0, ok.stderr
    assert "variables passed to the engine: PUB_PHRASE" in ok.stderr
    assert list(scratch.iterdir()) == []


def test_holon_run_forwards_an_archive_skills_requirement(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", "plain")
    steps = [{"run": 'printf %s "$PUB_PHRASE" | sha256sum > {output}/seen.txt'}, {"say": "ok"}]
    spec = write_task(tmp_path / "task", steps)
    ref = _archive(tmp_path / "task" / "context")
    text = spec.read_text(encoding="utf-8").replace("name: t", f"skills: ['context/{ref}']")
    spec.write_text(text, encoding="utf-8")
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {"TMPDIR": str(scratch), "PUB_PHRASE": VALUE}
    ran = holon_run(tmp_path, [str(spec), "--workspace", str(ws), "--engine", "replay", "--json"],
                    env)  # fmt: skip
    assert ran.exit_code == 0, ran.stdout + ran.stderr
    seen = (Path(ran.json["paths"]["output_dir"]) / "seen.txt").read_text()
    assert seen.startswith(hashlib.sha256(VALUE.encode()).hexdigest())
    assert list(scratch.iterdir()) == []
