"""`holon run` against a hostile engine and hostile inputs, through the real `holon-agent` and
the replay engine (whose steps run shell commands in the snapshot): planted links are never
followed, only holon's own output dirs are emptied, inputs are copied without leaving their
directory, and the original workspace is proven unchanged after every run.

These are holon's defences behind the room: they run with ``HOLON_SANDBOX=off``, where the
engine reaches whatever the user can (the room takes the original workspace, the run dir and
the input out of its reach altogether: ``test_the_room_keeps_the_original_out_of_reach``)."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path
from typing import Any

import pytest

from holon_core.testing import snapshot_tree

from .kit import ENGINE_STEPS, git, holon_run, make_workspace, run_dirs, write, write_task

REPLAY = ["--engine", "replay", "--json"]
Steps = list[dict[str, Any]]
#: The defences a user with --sandbox off still has (the module docstring says why).
OFF = {"HOLON_SANDBOX": "off"}


def _run(tmp: Path, spec: Path, ws: Path, *extra: str, room: bool = False) -> Any:
    argv = [str(spec), "--workspace", str(ws), *REPLAY, *extra]
    return holon_run(tmp, argv, env=None if room else OFF)


def test_the_room_keeps_the_original_out_of_reach(tmp_path: Path) -> None:
    """With the default room, the same hostile steps meet paths that do not exist: the
    original workspace, the run dir beside the snapshot, the input's spec."""
    ws = make_workspace(tmp_path / "ws", "git")
    out = tmp_path / "out"
    steps: Steps = [
        {"run": f"echo planted > {ws}/planted.txt || echo original-unreachable > {{output}}/o"},
        {"run": "touch ../planted-beside && ls -a .. > {output}/beside"},
        # the history is there: the snapshot's git borrows the original's objects read-only
        {"run": "git log --format=%s > {output}/log 2> {output}/log.err"},
        *ENGINE_STEPS,
    ]
    ran = _run(tmp_path, write_task(tmp_path / "task", steps), ws, "--output", str(out), room=True)

    assert ran.exit_code == 0, ran.stderr
    assert not (ws / "planted.txt").exists()
    assert (out / "o").read_text() == "original-unreachable\n"
    assert (out / "log").read_text() == git(ws, "log", "--format=%s"), (out / "log.err").read_text()
    assert (out / "log.err").read_text() == ""
    (run_dir,) = run_dirs(tmp_path)
    assert not list(run_dir.rglob("planted-beside"))


# -- 1. links planted next to the snapshot ----------------------------------------------------


def test_run_json_is_not_written_through_a_planted_link(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    ws = make_workspace(tmp_path / "ws", "git")
    steps = [{"run": f"ln -s {victim} ../run.json"}, *ENGINE_STEPS]
    ran = _run(tmp_path, write_task(tmp_path / "task", steps), ws)

    assert ran.exit_code == 0, ran.stderr
    assert victim.read_text() == "precious\n"
    (run_dir,) = run_dirs(tmp_path)
    record = run_dir / "run.json"
    assert not record.is_symlink()
    assert json.loads(record.read_text())["outcome"] == "success"


def test_run_dir_is_read_only_while_the_engine_runs(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", "plain")
    out = tmp_path / "out"
    steps: Steps = [{"run": "stat -c %a .. > {output}/mode"}, *ENGINE_STEPS]
    ran = _run(tmp_path, write_task(tmp_path / "task", steps), ws, "--output", str(out))

    assert ran.exit_code == 0, ran.stderr
    assert int((out / "mode").read_text(), 8) & 0o222 == 0
    (run_dir,) = run_dirs(tmp_path)
    assert run_dir.stat().st_mode & 0o700 == 0o700  # writable again for the record


def test_snapshot_swapped_for_a_link_is_not_followed_on_cleanup(tmp_path: Path) -> None:
    """The engine replaces the snapshot dir with a link to another project of the user's."""
    other = tmp_path / "other-project"
    write(other, "src/keep.py", "mine\n")
    ws = make_workspace(tmp_path / "ws", "plain")
    steps: Steps = [
        {"write": {"path": "a.txt", "content": "a\n"}},
        {"run": f"cd .. && mv workspace moved-away && ln -s {other} workspace"},
        {"say": "done"},
    ]
    _run(tmp_path, write_task(tmp_path / "task", steps), ws)

    assert (other / "src" / "keep.py").read_text() == "mine\n"


def test_a_users_dir_moved_into_the_snapshots_place_is_not_deleted(tmp_path: Path) -> None:
    """The engine moves another project of the user's to where the snapshot was."""
    other = tmp_path / "other-project"
    write(other, "src/keep.py", "mine\n")
    ws = make_workspace(tmp_path / "ws", "plain")
    steps: Steps = [
        {"write": {"path": "a.txt", "content": "a\n"}},
        {"run": f"cd .. && mv workspace moved-away && mv {other} workspace"},
        {"say": "done"},
    ]
    _run(tmp_path, write_task(tmp_path / "task", steps), ws)

    (run_dir,) = run_dirs(tmp_path)
    assert (run_dir / "workspace" / "src" / "keep.py").read_text() == "mine\n"


def test_progress_does_not_read_a_fifo_planted_as_the_event_log(tmp_path: Path) -> None:
    """Opening a FIFO with no writer blocks: the runner must not hang on the engine's plant."""
    ws = make_workspace(tmp_path / "ws", "plain")
    events = "{output}/evidence/events.ndjson"
    steps: Steps = [
        {"run": f"rm -f {events} && mkfifo {events}"},
        {"sleep": 1},
        {"write": {"path": "a.txt", "content": "a\n"}},
        {"say": "done"},
    ]
    ran = holon_run(
        tmp_path,
        [str(write_task(tmp_path / "task", steps)), "--workspace", str(ws), *REPLAY],
        timeout=90,
    )
    assert ran.exit_code in (0, 1), ran.stderr
    assert ran.json["run_id"]


# -- 4. only holon's own output dirs are emptied; a refused run leaves nothing ---------------


def test_output_with_its_own_manifest_json_is_not_wiped(tmp_path: Path) -> None:
    """A web extension project has a manifest.json of its own."""
    ext = tmp_path / "extension"
    write(ext, "manifest.json", '{"manifest_version": 3, "name": "my extension"}')
    write(ext, "background.js", "console.log('hi')\n")
    before = snapshot_tree(ext)
    ws = make_workspace(tmp_path / "ws", "plain")
    ran = _run(tmp_path, write_task(tmp_path / "task", ENGINE_STEPS), ws, "--output", str(ext))

    assert ran.exit_code == 1
    assert ran.json["reason"] == "invalid_input"
    assert ".holon-owned" in ran.json["error"]
    assert snapshot_tree(ext) == before
    assert run_dirs(tmp_path) == []


def test_holon_output_is_marked_and_reused(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", "plain")
    spec = write_task(tmp_path / "task", ENGINE_STEPS)
    out = tmp_path / "out"
    first = _run(tmp_path, spec, ws, "--output", str(out))
    assert first.exit_code == 0, first.stderr
    marker = out / ".holon-owned"
    assert marker.is_file() and not marker.is_symlink()
    assert json.loads(marker.read_text())["owner"] == "holon run"
    (out / "stale.txt").write_text("from the first run\n")

    second = _run(tmp_path, spec, ws, "--output", str(out))

    assert second.exit_code == 0, second.stderr
    assert not (out / "stale.txt").exists()
    assert (out / "manifest.json").is_file()


def test_a_fresh_volume_with_only_lost_and_found_is_used_and_kept(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", "plain")
    spec = write_task(tmp_path / "task", ENGINE_STEPS)
    out = tmp_path / "out"
    (out / "lost+found").mkdir(parents=True)  # what mkfs leaves at the root of a new volume
    (out / "lost+found" / "#1234").write_text("recovered\n")

    ran = _run(tmp_path, spec, ws, "--output", str(out))

    assert ran.exit_code == 0, ran.stderr  # holon-agent accepts it too: the two agree
    assert (out / "manifest.json").is_file()
    assert (out / "lost+found" / "#1234").read_text() == "recovered\n"
    again = _run(tmp_path, spec, ws, "--output", str(out))  # emptying a marked dir keeps it
    assert again.exit_code == 0, again.stderr
    assert (out / "lost+found" / "#1234").read_text() == "recovered\n"


def test_refused_runs_dir_leaves_nothing_behind(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", "plain")
    before = snapshot_tree(ws)
    spec = write_task(tmp_path / "task", ENGINE_STEPS)

    ran = _run(tmp_path, spec, ws, "--runs-dir", str(ws / "holon" / "runs"))

    assert ran.exit_code == 1
    assert ran.json["reason"] == "invalid_input"
    assert "--runs-dir" in ran.json["error"]
    assert snapshot_tree(ws) == before
    assert not (ws / "holon").exists()


def test_refused_output_leaves_no_new_runs_dir(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", "plain")
    occupied = tmp_path / "occupied"
    write(occupied, "mine.txt", "x\n")
    runs = tmp_path / "fresh" / "runs"
    spec = write_task(tmp_path / "task", ENGINE_STEPS)

    ran = _run(tmp_path, spec, ws, "--runs-dir", str(runs), "--output", str(occupied))

    assert ran.exit_code == 1
    assert not (tmp_path / "fresh").exists()


# -- 5. inputs are copied without leaving their directory ------------------------------------


def _skill(root: Path) -> Path:
    write(root, "SKILL.md", "---\nname: helper\ndescription: helps\n---\nBe helpful.\n")
    return root


def test_skill_link_out_of_its_directory_is_refused(tmp_path: Path) -> None:
    secret = tmp_path / "home" / ".ssh" / "id_ed25519"
    write(secret, "", "-----BEGIN OPENSSH PRIVATE KEY-----\nsecret\n")
    skill = _skill(tmp_path / "skill")
    (skill / "notes.md").symlink_to(secret)
    ws = make_workspace(tmp_path / "ws", "plain")

    ran = _run(tmp_path, write_task(tmp_path / "task", ENGINE_STEPS), ws, "--skill", str(skill))

    assert ran.exit_code == 1
    assert ran.json["reason"] == "invalid_skill"
    assert "notes.md" in ran.json["error"] and "links out of its skill" in ran.json["error"]
    leaked = [
        p for p in (tmp_path / "runs").rglob("*") if p.is_file() and "secret" in p.read_text()
    ]
    assert leaked == []


def test_default_context_dir_linking_out_of_the_task_is_refused(tmp_path: Path) -> None:
    """A task bundle from anyone: its context/ must not be a link to the user's files."""
    secrets_dir = tmp_path / "home" / ".aws"
    write(secrets_dir, "credentials", "aws_secret_access_key = secret\n")
    spec = write_task(tmp_path / "task", ENGINE_STEPS)
    context = tmp_path / "task" / "context"
    (context / "replay.yaml").rename(tmp_path / "replay.yaml")
    context.rmdir()
    context.symlink_to(secrets_dir)
    ws = make_workspace(tmp_path / "ws", "plain")

    ran = _run(tmp_path, spec, ws)

    assert ran.exit_code == 1
    assert "outside" in ran.json["error"] and str(secrets_dir) in ran.json["error"]
    assert run_dirs(tmp_path) == []


def test_prompt_file_that_is_a_device_is_refused(tmp_path: Path) -> None:
    spec = write_task(tmp_path / "task", ENGINE_STEPS)
    ws = make_workspace(tmp_path / "ws", "plain")

    ran = _run(tmp_path, spec, ws, "--system-prompt", "/dev/zero")

    assert ran.exit_code == 1
    assert "/dev/zero is a device" in ran.json["error"]
    assert run_dirs(tmp_path) == []


def test_context_link_to_a_device_is_refused(tmp_path: Path) -> None:
    spec = write_task(tmp_path / "task", ENGINE_STEPS)
    (tmp_path / "task" / "context" / "zeros").symlink_to("/dev/zero")
    ws = make_workspace(tmp_path / "ws", "plain")

    ran = _run(tmp_path, spec, ws)

    assert ran.exit_code == 1
    assert ran.json["reason"] == "invalid_input"
    assert "zeros" in ran.json["error"]
    assert run_dirs(tmp_path) == []


@pytest.mark.parametrize("kind", ["fifo", "socket"])
def test_special_file_in_context_is_refused(tmp_path: Path, kind: str) -> None:
    spec = write_task(tmp_path / "task", ENGINE_STEPS)
    special = tmp_path / "task" / "context" / "special"
    if kind == "fifo":
        os.mkfifo(special)
    else:
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(special))
        sock.close()
    ws = make_workspace(tmp_path / "ws", "plain")

    ran = _run(tmp_path, spec, ws)

    assert ran.exit_code == 1
    assert "special" in ran.json["error"] and "regular" in ran.json["error"]


def test_oversized_context_is_refused_with_the_cap(tmp_path: Path) -> None:
    spec = write_task(tmp_path / "task", ENGINE_STEPS)
    big = tmp_path / "task" / "context" / "big.bin"
    with big.open("wb") as handle:
        handle.truncate(65 * 1024 * 1024)  # sparse: costs no disk
    ws = make_workspace(tmp_path / "ws", "plain")

    ran = _run(tmp_path, spec, ws)

    assert ran.exit_code == 1
    assert "big.bin" in ran.json["error"] and "MiB" in ran.json["error"]
    assert run_dirs(tmp_path) == []


def test_links_inside_an_input_dir_stay_links(tmp_path: Path) -> None:
    spec = write_task(
        tmp_path / "task", [{"run": "cat ../input/context/alias.yaml > {output}/seen"}]
    )
    (tmp_path / "task" / "context" / "alias.yaml").symlink_to("replay.yaml")
    ws = make_workspace(tmp_path / "ws", "plain")

    ran = _run(tmp_path, spec, ws, "--output", str(tmp_path / "out"))

    assert ran.exit_code == 0, ran.stderr
    assert "cat ../input/context/alias.yaml" in (tmp_path / "out" / "seen").read_text()
    (run_dir,) = run_dirs(tmp_path)
    copied = run_dir / "input" / "context" / "alias.yaml"
    assert copied.is_symlink() and copied.readlink() == Path("replay.yaml")


# -- 6. the original workspace and the input dir are verified --------------------------------


def test_write_into_the_original_through_alternates_is_caught(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", "git")
    reach = "$(dirname $(dirname $(head -1 .git/objects/info/alternates)))"
    steps: Steps = [
        {"write": {"path": "a.txt", "content": "a\n"}},
        {"run": f"test -f .git/objects/info/alternates && echo pwned > {reach}/pwned.txt || true"},
        {"run": f"echo changed >> {ws}/README.md"},
        {"run": f"git --git-dir={ws}/.git update-ref refs/heads/evil HEAD"},
        {"say": "done"},
    ]
    ran = _run(tmp_path, write_task(tmp_path / "task", steps), ws)

    assert ran.exit_code == 2, ran.stderr
    result = ran.json
    assert (result["outcome"], result["reason"]) == ("needs_human", "workspace_modified")
    assert "README.md" in result["detail"]
    assert "refs/heads/evil" in result["detail"]


@pytest.mark.parametrize("kind", ["git", "plain"])
def test_plain_write_into_the_original_is_caught_and_not_applied(tmp_path: Path, kind: str) -> None:
    ws = make_workspace(tmp_path / "ws", kind)
    steps: Steps = [
        {"write": {"path": "a.txt", "content": "a\n"}},
        {"run": f"echo planted > {ws}/planted.txt && rm {ws}/notes.txt"},
        {"say": "done"},
    ]
    ran = _run(tmp_path, write_task(tmp_path / "task", steps), ws, "--apply")

    assert ran.exit_code == 2, ran.stderr
    result = ran.json
    assert result["reason"] == "workspace_modified"
    assert "planted.txt" in result["detail"] and "notes.txt" in result["detail"]
    assert result["applied"] is False
    assert not (ws / "a.txt").exists()


def test_output_inside_the_workspace_is_not_a_modification(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", "git")
    ran = _run(
        tmp_path, write_task(tmp_path / "task", ENGINE_STEPS), ws, "--output", str(ws / "out")
    )

    assert ran.exit_code == 0, ran.stdout + ran.stderr
    assert (ws / "out" / "manifest.json").is_file()


def test_engine_deleting_the_snapshot_git_keeps_its_edits_in_the_patch(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", "git")
    steps: Steps = [
        {"write": {"path": "src/app.py", "content": "print('engine')\n"}},
        {"write": {"path": "new.txt", "content": "new\n"}},
        {"run": "rm -rf .git"},
        {"say": "done"},
    ]
    out = tmp_path / "out"
    ran = _run(tmp_path, write_task(tmp_path / "task", steps), ws, "--output", str(out))

    patch = (out / "diff.patch").read_text() if (out / "diff.patch").exists() else ""
    assert "print('engine')" in patch, ran.stdout + ran.stderr
    assert "+new" in patch


def test_input_dir_is_read_only_and_verified(tmp_path: Path) -> None:
    """Modes say read-only (root ignores them, so the write itself is not what is checked);
    an engine that writes anyway is caught by the verification."""
    steps: Steps = [
        {"run": "stat -c %a ../input/spec.yaml ../input/context > {output}/modes"},
        {"run": "chmod -R u+w ../input && echo sneaky > ../input/context/extra.txt"},
        {"say": "done"},
    ]
    ws = make_workspace(tmp_path / "ws", "plain")
    out = tmp_path / "out"
    ran = _run(tmp_path, write_task(tmp_path / "task", steps), ws, "--output", str(out))

    modes = [int(mode, 8) for mode in (out / "modes").read_text().split()]
    assert [mode & 0o222 for mode in modes] == [0, 0]
    assert ran.exit_code == 2, ran.stderr
    assert ran.json["reason"] == "workspace_modified"
    assert "input: context/extra.txt (added)" in ran.json["detail"]


@pytest.mark.parametrize("kind", ["git", "plain"])
def test_untouched_original_passes_verification(tmp_path: Path, kind: str) -> None:
    ws = make_workspace(tmp_path / "ws", kind)
    git_touch = [{"run": f"git -C {ws} status --short > /dev/null"}] if kind == "git" else []
    steps = [*git_touch, *ENGINE_STEPS]
    ran = _run(tmp_path, write_task(tmp_path / "task", steps), ws)

    assert ran.exit_code == 0, ran.stdout + ran.stderr
    assert ran.json["reason"] in (None, "ok")
    if kind == "git":
        assert git(ws, "status", "--short")
