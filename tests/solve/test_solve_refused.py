"""``holon solve`` refuses before anything starts: no run dir, no engine, no GitHub write."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from .kit import git

if TYPE_CHECKING:
    from .kit import World


def _refused(world: World, done, *words: str) -> None:
    assert done.code == 1, done.stderr
    assert all(word in done.stderr for word in words), done.stderr
    assert done.result["outcome"] == "failure" and done.result["run_id"] is None
    runs = world.tmp / "runs"
    assert not runs.exists() or not any(runs.iterdir())
    assert world.gh.writes() == [] and world.push_count() == 0


def test_missing_token(world: World):
    env = {k: v for k, v in world.env().items() if k != "GITHUB_TOKEN"}
    _refused(world, world.solve("acme/widgets#7", env=env), "GITHUB_TOKEN", "HOLON_GITHUB_TOKEN")
    assert world.gh.calls == []


def test_holon_github_token_is_used_under_the_standard_name(world: World):
    env = {k: v for k, v in world.env().items() if k != "GITHUB_TOKEN"}
    env["HOLON_GITHUB_TOKEN"] = "wrong-token"
    _refused(world, world.solve("acme/widgets#7", env=env), "HTTP 401", "set a valid GITHUB_TOKEN")
    assert [c.authorized for c in world.gh.calls] == [False]


def test_unknown_issue(world: World):
    _refused(world, world.solve("acme/widgets#404"), "HTTP 404", "acme/widgets#404")


def test_rate_limited(world: World):
    world.gh.rate_limit()
    _refused(world, world.solve("acme/widgets#7"), "rate limited")


@pytest.mark.parametrize(
    ("ref", "words"),
    [
        ("acme/widgets", ["not an issue or pull request", "owner/repo#123"]),
        ("https://github.com/acme/widgets/tree/main", ["not an issue or pull request URL"]),
        ("https://gitlab.com/acme/widgets/issues/7", ["gitlab.com", "GITHUB_SERVER_URL"]),
        ("other/project#7", ["not of other/project", "--workspace"]),
    ],
)
def test_bad_ref(world: World, ref: str, words: list[str]):
    _refused(world, world.solve(ref), *words)
    assert world.gh.calls == []


def test_workspace_without_origin(world: World):
    git(world.workspace, "remote", "remove", "origin")
    _refused(world, world.solve("acme/widgets#7"), "not a git clone with an origin remote")


def test_uncommitted_changes_are_refused(world: World):
    # publish.py commits the snapshot's whole working tree: a local edit or an untracked file
    # would be pushed with the fix, though diff.patch (what the user reviews) never shows it.
    (world.workspace / "notes.txt").write_text("my private notes\n")
    (world.workspace / "widget.py").write_text("def spin():\n    return 2\n")
    done = world.solve("acme/widgets#7")
    _refused(world, done, "uncommitted changes", "notes.txt", "widget.py", "git stash -u")
    assert world.gh.calls == []


def test_pull_request_needs_its_head_checked_out(world: World):
    # The engine must work on the PR's code, and publish.py fast-forwards the PR's branch from
    # HEAD: from main the push was rejected at the very end, after the engine's whole run.
    git(world.workspace, "checkout", "-qb", "feature")
    (world.workspace / "widget.py").write_text("def spin():\n    return 1 / 0  # fast\n")
    git(world.workspace, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "fast")
    git(world.workspace, "push", "-q", "origin", "feature")
    world.pushes.unlink()
    head = git(world.workspace, "rev-parse", "HEAD")
    world.gh.add_pull("acme/widgets", 9, "Spin faster", head="feature", head_sha=head)
    git(world.workspace, "checkout", "-q", "main")
    done = world.solve("https://github.com/acme/widgets/pull/9")
    _refused(world, done, "not at the head of pull request acme/widgets#9", "git checkout feature")


def test_unknown_engine_is_refused_before_a_run_dir_exists(world: World):
    done = world.solve("acme/widgets#7", "--engine", "cluade")
    _refused(world, done, 'unknown engine "cluade"', "installed:", "replay")
    assert done.result["reason"] == "unknown_engine"
