"""`holon run` on a dirty git repo and on a plain directory: the original is never touched,
the engine works on a faithful snapshot, and --apply brings exactly the engine's change home."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from holon_core.testing import snapshot_tree

from .kit import (
    ENGINE_STEPS,
    copy_tree,
    engine_effect,
    git,
    holon_run,
    make_workspace,
    run_dirs,
    write_task,
)

KINDS = ["git", "plain"]
CheckManifest = Callable[[dict[str, Any] | None], dict[str, Any]]


@pytest.mark.parametrize("kind", KINDS)
def test_original_untouched_and_output_fresh(
    tmp_path: Path, kind: str, assert_valid_manifest: CheckManifest
) -> None:
    ws = make_workspace(tmp_path / "ws", kind)
    steps: list[dict[str, Any]] = list(ENGINE_STEPS)
    if kind == "git":  # an engine that commits must not reach the user's repository
        steps.insert(
            -1,
            {"run": "git add -A && git -c user.name=e -c user.email=e@x commit -qm engine-commit"},
        )
    spec = write_task(tmp_path / "task", steps)
    out = tmp_path / "out"
    (out / "evidence").mkdir(parents=True)
    (out / ".holon-owned").write_text('{"owner": "holon run", "created": "earlier"}\n')
    (out / "manifest.json").write_text('{"from": "an earlier run"}')
    (out / "stale.txt").write_text("left by an earlier run\n")
    (out / "evidence" / "events.ndjson").write_text('{"type": "phase"}\n')
    before = snapshot_tree(ws)

    ran = holon_run(
        tmp_path,
        [str(spec), "--workspace", str(ws), "--output", str(out), "--engine", "replay", "--json"],
    )

    assert ran.exit_code == 0, ran.stderr
    assert snapshot_tree(ws) == before  # every file and the whole .git, byte for byte
    assert not (out / "stale.txt").exists()
    manifest = assert_valid_manifest(json.loads((out / "manifest.json").read_text()))
    assert "from" not in manifest
    assert sorted(p.name for p in out.iterdir()) == [
        ".holon-owned",
        "diff.patch",
        "evidence",
        "manifest.json",
        "report.html",
        "seen.txt",
        "summary.md",
    ]
    # The engine saw the user's current state: staged, unstaged and untracked files.
    expected_readme = "hello\nstaged line\n" if kind == "git" else "hello\n"
    assert (out / "seen.txt").read_text() == (
        expected_readme + "print('app, dirty')\nuntracked before the run\n"
    )
    patch = (out / "diff.patch").read_text()
    assert "debug.log" not in patch and "keep.log" not in patch
    assert manifest["metadata"]["files_changed"] == 5
    (run_dir,) = run_dirs(tmp_path)
    assert not (run_dir / "workspace").exists()  # snapshot removed by default
    assert ran.json["snapshot"]["kind"] == ("git-clone" if kind == "git" else "copy")


@pytest.mark.parametrize("kind", KINDS)
def test_apply_brings_exactly_the_engine_change(tmp_path: Path, kind: str) -> None:
    ws = make_workspace(tmp_path / "ws", kind)
    expected = tmp_path / "expected"
    expected.mkdir()
    copy_tree(ws, expected)
    engine_effect(expected)
    spec = write_task(tmp_path / "task", ENGINE_STEPS)

    ran = holon_run(
        tmp_path, [str(spec), "--workspace", str(ws), "--engine", "replay", "--apply", "--json"]
    )

    assert ran.exit_code == 0, ran.stderr
    assert ran.json["applied"] is True
    assert snapshot_tree(ws) == snapshot_tree(expected)  # .git included: index never touched
    if kind == "git":
        assert git(ws, "log", "--format=%s") == "initial\n"


@pytest.mark.parametrize("kind", KINDS)
def test_original_edited_during_the_run_is_not_applied(tmp_path: Path, kind: str) -> None:
    """The original changes while the engine works (here the engine writes it, as a user's
    edit would): the run needs a human and the patch is not forced onto the edited file."""
    ws = make_workspace(tmp_path / "ws", kind)
    steps: list[dict[str, Any]] = [
        {"write": {"path": "src/app.py", "content": "print('engine')\n"}},
        {"run": f"echo 'user edit meanwhile' > {ws / 'src' / 'app.py'}"},
    ]
    spec = write_task(tmp_path / "task", steps)
    before = snapshot_tree(ws)

    # the edit comes from outside the room (a user's); in the room the engine cannot make it
    ran = holon_run(
        tmp_path,
        [str(spec), "--workspace", str(ws), "--engine", "replay", "--apply", "--json"],
        env={"HOLON_SANDBOX": "off"},
    )

    assert ran.exit_code == 2
    result = ran.json
    assert (result["outcome"], result["reason"]) == ("needs_human", "workspace_modified")
    assert "workspace: src/app.py (modified)" in result["detail"]
    assert result["applied"] is False
    assert (ws / "src" / "app.py").read_text() == "user edit meanwhile\n"
    changed = {k for k in before if snapshot_tree(ws).get(k) != before[k]}
    assert changed == {"src/app.py"}  # only the user's own edit; nothing was applied


def test_plain_directory_inside_a_repository_is_patched_as_plain(tmp_path: Path) -> None:
    """git must not re-root the patch at an enclosing repository's top level."""
    outer = tmp_path / "outer"
    outer.mkdir()
    git(outer, "init", "-q", "-b", "main")
    ws = make_workspace(outer / "sub", "plain")
    expected = tmp_path / "expected"
    expected.mkdir()
    copy_tree(ws, expected)
    engine_effect(expected)
    spec = write_task(tmp_path / "task", ENGINE_STEPS)

    ran = holon_run(
        tmp_path, [str(spec), "--workspace", str(ws), "--engine", "replay", "--apply", "--json"]
    )

    assert ran.exit_code == 0, ran.stderr
    assert snapshot_tree(ws) == snapshot_tree(expected)
    assert not (outer / "deep").exists()
