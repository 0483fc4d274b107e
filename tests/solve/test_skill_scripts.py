"""The skill's scripts called directly, as the engine calls them, against the fake server."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import TYPE_CHECKING

import jsonschema
import pytest

from .kit import REPO, SCRIPTS, TOKEN

if TYPE_CHECKING:
    from pathlib import Path

    from holon_core.testing.github import FakeGitHub

SCHEMA = json.loads((SCRIPTS.parent / "publish-intent.schema.json").read_text())


def script(name: str, tmp_path: Path, gh: FakeGitHub, request: dict[str, object], *args: str):
    (tmp_path / "in" / "context").mkdir(parents=True, exist_ok=True)
    (tmp_path / "in" / "context" / "request.json").write_text(json.dumps(request))
    env = {"PATH": "/usr/bin:/bin", "GITHUB_TOKEN": TOKEN, "GITHUB_API_URL": gh.url}
    env |= {"HOLON_INPUT_DIR": str(tmp_path / "in"), "HOLON_OUTPUT_DIR": str(tmp_path / "out")}
    return subprocess.run(
        [sys.executable, str(SCRIPTS / name), *args],
        env=env, cwd=tmp_path, capture_output=True, text=True, check=False,
    )  # fmt: skip


def test_comment_is_edited_not_duplicated(tmp_path, gh):
    gh.add_issue(REPO, 3, "t")
    request = {"repo": REPO, "number": 3, "publish": True}
    (tmp_path / "out").mkdir()
    for text in ("first", "second", "second"):
        intent = {"version": 1, "comment": {"body": text}}
        (tmp_path / "out" / "publish-intent.json").write_text(json.dumps(intent))
        done = script("publish.py", tmp_path, gh, request)
        assert done.returncode == 0, done.stderr
    comments = gh.comments_of(REPO, 3)
    assert len(comments) == 1 and comments[0]["body"].startswith("second")
    assert [c.method for c in gh.writes()] == ["POST", "PATCH"]


def test_collect_reports_a_rate_limit(tmp_path, gh):
    gh.add_issue(REPO, 3, "t")
    gh.rate_limit()
    done = script("collect.py", tmp_path, gh, {"repo": REPO, "number": 3})
    assert done.returncode == 1 and "rate limited" in done.stderr


@pytest.mark.parametrize(
    "intent",
    [
        {"version": 1},
        {"version": 2},
        {"version": 1, "branch": {"name": "-bad", "message": "m"}},
        {"version": 1, "pull_request": {"title": "t", "body": "b"}},
        {"version": 1, "review_replies": [{"comment_id": 0, "body": "x"}]},
        {"version": 1, "review_replies": [{"comment_id": True, "body": "x"}]},
        {"version": 1, "comment": {"body": ""}, "extra": 1},
        {
            "version": 1,
            "branch": {"name": "holon/x", "message": "m"},
            "pull_request": {"title": "t", "body": ""},
        },
    ],
)
def test_stdlib_validator_agrees_with_jsonschema(intent):
    sys.path.insert(0, str(SCRIPTS))
    try:
        from intent import problems  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(SCRIPTS))
    valid = jsonschema.Draft202012Validator(SCHEMA).is_valid(intent)
    assert (problems(intent, SCHEMA) == []) == valid
