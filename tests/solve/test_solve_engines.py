"""``holon solve --publish`` with each real engine, offline: the scripted model server plays
the model (scenario ``github-solve-issue``: collect, fix, intent, publish), the fake GitHub
server and a local bare repository play GitHub. One run per engine checks the whole flow."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from .kit import REPO, git

if TYPE_CHECKING:
    from .kit import World

#: Per engine: the model name and the engine's own retry cap, as its adapter tests set them.
SETTINGS = {
    "claude": {"HOLON_MODEL": "fake-model-1", "HOLON_CLAUDE_MAX_RETRIES": "1"},
    "codex": {"HOLON_MODEL": "gpt-5.5"},
    "gemini": {"HOLON_MODEL": "gemini-test-model", "HOLON_GEMINI_MAX_ATTEMPTS": "1"},
}


@pytest.mark.parametrize(
    "engine",
    [pytest.param(name, marks=pytest.mark.engine(name)) for name in SETTINGS],
)
def test_issue_published_once(engine: str, world: World, engine_binary, scripted_provider):
    engine_binary(engine)  # fails, never skips, when the engine is missing
    model = scripted_provider("github-solve-issue")
    env = world.env(**model.engine_env(engine), **SETTINGS[engine], HOLON_SILENCE_TIMEOUT="60")
    done = world.solve("acme/widgets#7", "--engine", engine, "--publish", env=env)
    assert done.code == 0, (done.stderr[-3000:], done.stdout[-3000:])
    assert done.result["outcome"] == "success"
    assert "+    return 1" in (done.output / "diff.patch").read_text()
    assert (done.output / "summary.md").is_file()
    assert done.read("context/index.json")["kind"] == "issue"
    assert done.read("publish-intent.json")["pull_request"]["title"] == "Fix spin()"
    statuses = [a["status"] for a in done.read("publish-result.json")["actions"]]
    assert statuses == ["pushed", "created", "created"]
    assert world.push_count() == 1 and world.branches() == ["holon/issue-7", "main"]
    assert git(world.bare, "show", "holon/issue-7:widget.py").endswith("return 1")
    assert len(world.gh.pulls_of(REPO)) == 1
    assert [c.method for c in world.gh.writes()] == ["POST", "POST"]  # the PR, the comment
    assert all(call.authorized for call in world.gh.calls)
    manifest = done.read("manifest.json")
    skills = {s["name"]: s for s in manifest["metadata"]["skills"]}
    assert skills["github-solve"]["staging"] == "native"
    for path in done.output.rglob("*"):
        if path.is_file():
            assert b"ghs_testtoken" not in path.read_bytes(), path
