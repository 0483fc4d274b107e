"""`holon skills validate PATH` checks one package on its own: it names no layer (a run decides
the layer), and a refusal names the skill and the rule and exits 1."""

from __future__ import annotations

from pathlib import Path

from .kit import holon, make_skill


def test_validate_names_no_layer_and_refuses_naming_the_rule(tmp_path: Path) -> None:
    make_skill(tmp_path, "lint-fix", version="2.1.0")
    text = holon(tmp_path, ["skills", "validate", "lint-fix"], cwd=tmp_path)
    assert text.exit_code == 0, text.stdout + text.stderr
    first = text.stdout.splitlines()[0]
    assert first.startswith("lint-fix@2.1.0  valid, no layer  lint-fix  sha256:"), first
    assert "flag" not in text.stdout
    as_json = holon(tmp_path, ["skills", "validate", "lint-fix", "--json"], cwd=tmp_path)
    skill = as_json.json["skill"]
    assert as_json.json["ok"] is True and skill["layer"] is None
    assert (skill["name"], skill["version"], len(skill["sha256"])) == ("lint-fix", "2.1.0", 64)

    make_skill(tmp_path, "Bad_Name", dirname="bad")
    refused = holon(tmp_path, ["skills", "validate", "bad", "--json"], cwd=tmp_path)
    assert refused.exit_code == 1
    assert refused.json["ok"] is False and "Bad_Name" in refused.json["error"]
    assert "lowercase letters" in refused.json["hint"]


def test_an_archive_without_its_pin_is_named_as_such(tmp_path: Path) -> None:
    (tmp_path / "gp.tar.gz").write_bytes(b"\x1f\x8b not really")
    done = holon(tmp_path, ["skills", "validate", "gp.tar.gz", "--json"], cwd=tmp_path)
    assert done.exit_code == 1
    assert "is a file" in done.json["error"], done.json
    assert "gp.tar.gz#sha256=" in done.json["hint"] and "sha256sum" in done.json["hint"]
    missing = holon(tmp_path, ["skills", "validate", "nope", "--json"], cwd=tmp_path)
    assert missing.exit_code == 1 and "does not exist" in missing.json["error"], missing.json


def test_a_bare_name_only_the_store_has_points_at_name_at_version(tmp_path: Path) -> None:
    make_skill(tmp_path / "src", "gp", version="1.2.0")
    added = holon(tmp_path, ["skills", "add", str(tmp_path / "src" / "gp")], cwd=tmp_path)
    assert added.exit_code == 0, added.stderr
    ws = tmp_path / "ws"
    ws.mkdir()
    done = holon(tmp_path, ["skills", "show", "gp", "--workspace", str(ws), "--json"], cwd=ws)
    assert done.exit_code == 1
    assert "not found" in done.json["error"] and "gp@1.2.0" in done.json["hint"], done.json
