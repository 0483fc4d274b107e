"""Every layer and collision rule in one real holon-agent run (replay engine), plus the
in-layer duplicate refused before the engine starts."""

from __future__ import annotations

import json
import os
from pathlib import Path

from holon_core.skill.store import add
from holon_core.testing import make_task, run_agent

from .kit import make_skill


def _log_events(output: Path) -> list[dict[str, object]]:
    lines = (output / "evidence" / "execution.log").read_text().splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def test_layers_precedence_and_record(tmp_path: Path) -> None:
    user1, user2 = tmp_path / "user1", tmp_path / "user2"
    make_skill(user1, "shared", version="1.0.0")
    make_skill(user2, "shared", version="2.0.0")  # later in HOLON_SKILLS_PATH: shadowed
    make_skill(user1, "user-only")
    make_skill(user1, "never-named")  # a library skill the spec does not name: not used
    env = {"HOME": str(tmp_path / "home"), "XDG_DATA_HOME": str(tmp_path / "data")}
    env["HOLON_SKILLS_PATH"] = os.pathsep.join([str(user1), str(user2)])
    add(str(make_skill(tmp_path / "src", "stored", version="1.0.0")), env)
    refs = ["holon-report", "user-only", "shared", "over", "stored@1.0.0"]
    spec = {"metadata": {"name": "t", "skills": refs}}
    task = make_task(tmp_path / "t", spec_extra=spec, replay=[{"say": "done"}])
    ws_skills = task.workspace / ".holon" / "skills"
    make_skill(ws_skills, "ws-only", extra="colour: blue\n")  # unknown key: a warning
    make_skill(ws_skills, "over")
    make_skill(ws_skills, "flagged")
    make_skill(task.input / "skills", "over", version="9.0.0")  # spec layer beats workspace
    flag = make_skill(tmp_path / "flags", "flagged", version="3.0.0")  # flag beats workspace
    result = run_agent(task, env=env, args=["--skill", str(flag)])
    assert result.exit_code == 0, result.stderr
    records = result.manifest["metadata"]["skills"]  # type: ignore[index]
    rows = [(r["name"], r["source"], r.get("version")) for r in records]  # None: left out
    assert rows == [
        ("holon-report", "builtin", None),
        ("shared", "user", "1.0.0"),
        ("user-only", "user", None),
        ("ws-only", "workspace", None),
        ("over", "spec", "9.0.0"),
        ("stored", "spec", "1.0.0"),
        ("flagged", "flag", "3.0.0"),
    ]
    stored = records[5]
    assert stored["origin"] == "store:stored@1.0.0" and len(stored["sha256"]) == 64
    warnings = result.manifest["metadata"]["warnings"]  # type: ignore[index]
    assert any("ws-only" in w and "colour" in w for w in warnings)
    events = _log_events(task.output)
    logged = [e["name"] for e in events if e.get("event") == "skill" and "sha256" in e]
    assert logged == [r[0] for r in rows]
    notes = " | ".join(str(e["detail"]) for e in events if e.get("event") == "skill precedence")
    assert "skill shared: user" in notes and "shadows user" in notes
    assert "skill over: spec" in notes and "replaces workspace" in notes
    assert "skill flagged: flag" in notes


def test_in_layer_duplicate_is_refused_before_the_engine(tmp_path: Path) -> None:
    task = make_task(tmp_path / "t", replay=[{"write": {"path": "x.txt", "content": "x"}}])
    one = make_skill(tmp_path / "a", "twin")
    two = make_skill(tmp_path / "b", "twin")
    result = run_agent(
        task, env={"HOME": str(tmp_path)}, args=["--skill", str(one), "--skill", str(two)]
    )
    assert (result.exit_code, result.reason) == (1, "invalid_skill")
    assert "two flag skills are named 'twin'" in result.manifest["error"]  # type: ignore[index]
    assert not (task.workspace / "x.txt").exists()  # the engine never ran
