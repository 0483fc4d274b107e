"""``holon solve`` end to end with the replay engine playing the skill: the real CLI, runner,
holon-agent and skill scripts against the fake GitHub server and a local bare remote."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .kit import REPO, git
from .replay import script

if TYPE_CHECKING:
    from .kit import World


def test_issue_dry_run_then_publish_then_rerun(world: World, tmp_path):
    env = world.env(**script(tmp_path / "replay.yaml"))
    dry = world.solve("acme/widgets#7", "--engine", "replay", env=env)
    assert dry.code == 0, dry.stderr
    assert dry.result["outcome"] == "success"
    assert "+    return 1" in (dry.output / "diff.patch").read_text()
    assert dry.read("publish-intent.json")["branch"]["name"] == "holon/issue-7"
    assert dry.read("publish-result.json")["dry_run"] is True
    assert dry.read("context/index.json")["kind"] == "issue"
    assert dry.result["paths"]["report"] == str(dry.output / "report.html")
    assert "holon · run report" in (dry.output / "report.html").read_text()
    request = dry.result["solve"]["request"]
    assert (request["kind"], request["publish"], request["base"]) == ("issue", False, "main")
    assert world.gh.writes() == [] and world.push_count() == 0
    assert world.branches() == ["main"]
    assert all(call.authorized for call in world.gh.calls)

    first = world.solve("acme/widgets#7", "--engine", "replay", "--publish", env=env)
    assert first.code == 0, first.stderr
    statuses = [a["status"] for a in first.read("publish-result.json")["actions"]]
    assert statuses == ["pushed", "created", "created"]
    assert world.branches() == ["holon/issue-7", "main"] and world.push_count() == 1
    pulls = world.gh.pulls_of(REPO)
    assert [(p["head"]["ref"], p["base"]["ref"], p["title"]) for p in pulls] == [
        ("holon/issue-7", "main", "Fix spin()")
    ]
    comments = world.gh.comments_of(REPO, 7)
    assert len(comments) == 1 and pulls[0]["html_url"] in comments[0]["body"]
    shown = git(world.bare, "show", "holon/issue-7:widget.py")
    assert shown.endswith("return 1")
    # The user's clone is untouched: no new branch, no commit, no change.
    assert git(world.workspace, "status", "--porcelain") == ""
    assert git(world.workspace, "branch", "--format=%(refname:short)") == "main"

    again = world.solve("acme/widgets#7", "--engine", "replay", "--publish", env=env)
    assert again.code == 0, again.stderr
    statuses = [a["status"] for a in again.read("publish-result.json")["actions"]]
    assert statuses == ["unchanged", "unchanged", "unchanged"]
    assert len(world.gh.pulls_of(REPO)) == 1 and len(world.gh.comments_of(REPO, 7)) == 1
    assert world.push_count() == 1
    assert [c.method for c in world.gh.writes()] == ["POST", "POST"]  # the first run's only
    token_seen = [*(again.output / "evidence").rglob("*"), again.output / "report.html"]
    assert not any(
        "ghs_testtoken" in p.read_text(errors="replace") for p in token_seen if p.is_file()
    )


def test_no_change_publishes_nothing(world: World, tmp_path):
    env = world.env(**script(tmp_path / "replay.yaml", change=False, intent={"version": 1}))
    done = world.solve("acme/widgets#7", "--engine", "replay", "--publish", env=env)
    assert done.code == 0, done.stderr
    assert done.result["outcome"] == "success"
    assert (done.output / "diff.patch").read_text() == ""
    assert done.read("publish-result.json")["actions"] == []
    assert world.gh.writes() == [] and world.push_count() == 0


def test_no_change_with_a_branch_in_the_intent_still_publishes_nothing(world: World, tmp_path):
    env = world.env(**script(tmp_path / "replay.yaml", change=False))
    done = world.solve("acme/widgets#7", "--engine", "replay", "--publish", env=env)
    assert done.code == 0, done.stderr
    actions = done.read("publish-result.json")["actions"]
    assert [a["status"] for a in actions[:2]] == ["no_changes", "skipped: no changes to propose"]
    assert world.push_count() == 0 and world.gh.pulls_of(REPO) == []


def test_pull_request_run_replies_to_the_given_comments(world: World, tmp_path):
    git(world.workspace, "checkout", "-qb", "feature")
    git(world.workspace, "push", "-q", "origin", "feature")
    world.pushes.unlink()  # the setup's push is not the skill's
    head = git(world.workspace, "rev-parse", "HEAD")
    world.gh.add_pull(REPO, 9, "Spin faster", head="feature", head_sha=head, diff="diff --git\n")
    one = world.gh.add_review_comment(REPO, 9, "Do not divide by zero", "widget.py")
    two = world.gh.add_review_comment(REPO, 9, "Add a docstring?", "widget.py")
    world.gh.add_check_run(REPO, head, "tests", "failure")
    pr_fix = {
        "review_replies": [
            {"comment_id": one["id"], "status": "fixed", "message": "Returns 1 now."},
            {"comment_id": two["id"], "status": "wontfix", "message": "Out of scope."},
        ]
    }
    intent = {
        "version": 1,
        "branch": {"name": "feature", "message": "Address review comments"},
        "review_replies": [
            {"comment_id": one["id"], "body": "Fixed: returns 1 now."},
            {"comment_id": two["id"], "body": "Out of scope for this PR."},
        ],
    }
    env = world.env(**script(tmp_path / "r.yaml", intent=intent, files={"pr-fix.json": pr_fix}))
    url = f"https://github.com/{REPO}/pull/9"
    done = world.solve(url, "--engine", "replay", "--publish", env=env)
    assert done.code == 0, done.stderr
    assert done.result["solve"]["request"]["kind"] == "pull_request"
    assert done.read("pr-fix.json") == pr_fix
    index = done.read("context/index.json")
    assert index["kind"] == "pull_request" and index["head"] == "feature"
    assert {"review_comments.json", "pr.diff", "checks.json"} <= set(index["files"])
    replies = [c for c in world.gh.review_comments.values() if c["in_reply_to_id"]]
    assert sorted(c["in_reply_to_id"] for c in replies) == [one["id"], two["id"]]
    assert world.push_count() == 1
    assert git(world.bare, "rev-parse", "feature~1") == head  # a fast-forward on the PR head


def test_push_rejected_fails_and_opens_no_pr(world: World, tmp_path):
    hook = world.bare / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'protected: pushes are not allowed' >&2\nexit 1\n")
    hook.chmod(0o755)
    env = world.env(**script(tmp_path / "replay.yaml"))
    done = world.solve("acme/widgets#7", "--engine", "replay", "--publish", env=env)
    assert done.code == 1
    published = done.read("publish-result.json")
    assert "rejected" in published["error"] and "protected" in published["error"]
    assert [a["status"] for a in published["actions"]][1:] == [
        "not run: an earlier action failed"
    ] * 2
    assert world.gh.writes() == [] and world.branches() == ["main"]


def test_malformed_intent_fails_naming_the_field(world: World, tmp_path):
    bad = {"version": 1, "pull_request": {"title": "x", "body": "y"}, "colour": "red"}
    env = world.env(**script(tmp_path / "replay.yaml", intent=bad))
    done = world.solve("acme/widgets#7", "--engine", "replay", "--publish", env=env)
    assert done.code == 1
    error = done.read("publish-result.json")["error"]
    assert "intent.colour is not a known field" in error
    assert "intent.pull_request needs intent.branch" in error
    assert world.gh.writes() == [] and world.push_count() == 0
