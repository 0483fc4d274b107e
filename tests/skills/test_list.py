"""`holon skills list`: every skill holon can find, per layer, with its version, origin, digest
and validity (the run's own validator: the reason when it fails), shadowed skills marked, and
with ``--spec`` what a run would stage or why it would be refused."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from .kit import holon, make_skill, publish, tar_gz

BROKEN = "---\nname: broken\ndescription: [unclosed\n---\nSteps.\n"
ROW_KEYS = {
    "name", "version", "layer", "origin", "path", "sha256", "description", "valid", "error",
    "hint", "status", "shadowed_by", "staged", "warnings",
}  # fmt: skip


def _world(tmp: Path) -> Path:
    """User skills (one broken, one shadowing a builtin), a stored one, a workspace skill."""
    user = tmp / "config" / "holon" / "skills"
    (user / "broken").mkdir(parents=True)
    (user / "broken" / "SKILL.md").write_text(BROKEN, encoding="utf-8")
    make_skill(user, "holon-report", version="9.0.0")  # shadows the builtin holon-report
    make_skill(user, "mine", version="1.0.0")
    added = holon(tmp, ["skills", "add", str(make_skill(tmp / "src", "packed", version="2.0.0"))])
    assert added.exit_code == 0, added.stderr
    ws = tmp / "ws"
    make_skill(ws / ".holon" / "skills", "ws-lint", version="1.2.0")
    return ws


def _rows(listed: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(row["name"], row["layer"]): row for row in listed["skills"]}


def test_list_shows_layer_version_origin_digest_and_validity(tmp_path: Path) -> None:
    ws = _world(tmp_path)
    listed = holon(tmp_path, ["skills", "list", "--workspace", str(ws), "--json"])
    assert listed.exit_code == 0, listed.stderr
    data = listed.json
    rows = _rows(data)
    assert all(set(row) == ROW_KEYS for row in data["skills"])

    broken = rows["broken", "user"]
    assert (broken["valid"], broken["status"], broken["sha256"]) == (False, "invalid", None)
    assert "front matter is not valid YAML" in broken["error"] and broken["hint"]
    assert broken["origin"] == str(tmp_path / "config" / "holon" / "skills" / "broken")
    assert "broken" not in data["available"]  # an invalid skill is not on offer

    builtin = rows["holon-report", "builtin"]
    assert (builtin["status"], builtin["shadowed_by"], builtin["valid"]) == (
        "shadowed",
        "user",
        True,
    )
    user = rows["holon-report", "user"]
    assert (user["status"], user["version"], user["shadowed_by"]) == ("available", "9.0.0", None)
    assert len(user["sha256"]) == 64 and user["sha256"] != builtin["sha256"]

    stored = rows["packed", "store"]
    assert (stored["version"], stored["origin"], stored["status"]) == (
        "2.0.0",
        "store:packed@2.0.0",
        "available",
    )
    ws_lint = rows["ws-lint", "workspace"]
    assert (ws_lint["staged"], ws_lint["status"], ws_lint["version"]) == (True, "staged", "1.2.0")
    assert [row["name"] for row in data["staged"]] == ["ws-lint"]
    layers = [row["layer"] for row in data["skills"]]
    order = ["builtin", "user", "store", "workspace", "spec", "flag"]
    assert layers == sorted(layers, key=order.index)  # by layer, then name


def test_text_is_an_aligned_table_with_the_reason_of_an_invalid_skill(tmp_path: Path) -> None:
    ws = _world(tmp_path)
    listed = holon(tmp_path, ["skills", "list", "--workspace", str(ws)])
    assert listed.exit_code == 0, listed.stderr
    lines = listed.stdout.splitlines()
    header = lines[0].split()
    assert header == ["NAME", "VERSION", "LAYER", "STATUS", "SHA256", "ORIGIN"], lines[0]
    table = [line for line in lines[1:] if line and not line.startswith(" ")][: len(lines)]
    rows = [line for line in table if line.split()[0] in {"broken", "holon-report", "ws-lint"}]
    column = lines[0].index("STATUS")
    assert all(row[column - 1] == " " and row[column] != " " for row in rows), rows
    broken = next(i for i, line in enumerate(lines) if line.startswith("broken "))
    assert lines[broken].split()[1:4] == ["-", "user", "invalid"], lines[broken]
    assert "front matter is not valid YAML" in lines[broken + 1]
    assert any("shadowed by user" in line for line in lines if line.startswith("holon-report"))


def test_with_a_spec_it_shows_what_a_run_stages_and_why_it_refuses(tmp_path: Path) -> None:
    ws = _world(tmp_path)
    spec = tmp_path / "task" / "spec.yaml"
    spec.parent.mkdir()
    make_skill(spec.parent / "skills", "own", version="0.1.0")  # the spec's own skill

    def with_refs(*refs: str) -> dict[str, Any]:
        data = {"version": "v1", "kind": "Holon", "goal": "g", "metadata": {"skills": list(refs)}}
        spec.write_text(yaml.safe_dump(data), encoding="utf-8")
        argv = ["skills", "list", "--spec", str(spec), "--workspace", str(ws), "--json"]
        done = holon(tmp_path, argv)
        assert done.exit_code == (0 if done.json["ok"] else 1)
        return done.json

    good = with_refs("mine", "packed@2.0.0", "own")
    assert good["ok"] is True, good
    staged = [(row["name"], row["layer"]) for row in good["staged"]]
    assert staged == [("mine", "user"), ("ws-lint", "workspace"), ("own", "spec"),
                      ("packed", "spec")]  # fmt: skip
    rows = _rows(good)
    assert rows["own", "spec"]["staged"] is True
    assert rows["packed", "store"]["staged"] is True  # pinned by the spec
    assert rows["mine", "user"]["status"] == "staged"

    skill_md = b"---\nname: packed-zip\ndescription: From an archive\nversion: 0.3.0\n---\nGo.\n"
    digest = publish(spec.parent, "pz.tar.gz", tar_gz({"packed-zip/SKILL.md": skill_md}))
    pinned = f"pz.tar.gz#sha256={digest}"
    archived = _rows(with_refs(pinned))["packed-zip", "spec"]
    assert (archived["origin"], archived["version"], archived["staged"]) == (pinned, "0.3.0", True)
    assert archived["valid"] is True and len(archived["sha256"]) == 64

    refused = with_refs("broken")
    assert refused["ok"] is False
    assert "broken" in refused["error"] and "front matter is not valid YAML" in refused["error"]
    assert refused["hint"] and refused["staged"] == []
    assert _rows(refused)["broken", "user"]["valid"] is False

    missing = with_refs("nope")
    assert missing["ok"] is False and "skill 'nope' not found" in missing["error"]
    (row,) = [row for row in missing["skills"] if row["layer"] == "spec"]
    assert (row["name"], row["valid"], row["status"]) == ("nope", False, "invalid")

    text = holon(tmp_path, ["skills", "list", "--spec", str(spec), "--workspace", str(ws)])
    assert text.exit_code == 1
    assert "refused: skill 'nope' not found" in text.stdout and "  fix: " in text.stdout


def test_a_flag_skill_shadows_the_workspace_one(tmp_path: Path) -> None:
    ws = _world(tmp_path)
    flag = make_skill(tmp_path / "flags", "ws-lint", version="3.0.0")
    argv = ["skills", "list", "--workspace", str(ws), "--skill", str(flag), "--json"]
    listed = holon(tmp_path, argv)
    assert listed.exit_code == 0, listed.stderr
    rows = _rows(listed.json)
    assert rows["ws-lint", "workspace"]["shadowed_by"] == "flag"
    assert rows["ws-lint", "workspace"]["status"] == "shadowed"
    assert (rows["ws-lint", "flag"]["status"], rows["ws-lint", "flag"]["version"]) == (
        "staged",
        "3.0.0",
    )
    assert any("flag" in note and "replaces workspace" in note for note in listed.json["notes"])
