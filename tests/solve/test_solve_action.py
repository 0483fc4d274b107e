"""The GitHub Action's ``solve`` input end to end: ``holon action run`` in a simulated runner
publishes the fix through the real ``holon solve`` (replay engine playing the skill, the fake
GitHub server, a local bare remote) and hands the pull request's URL to the next steps."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tests.action.runner import run_step, runner_env

from .kit import REPO
from .replay import script

if TYPE_CHECKING:
    from .kit import World


def test_the_action_solves_an_issue_and_outputs_the_pull_request(world: World, tmp_path):
    env = runner_env(tmp_path, world.workspace) | world.env(**script(tmp_path / "replay.yaml"))
    env |= {
        "INPUT_ENGINE": "replay",
        "INPUT_SOLVE": "acme/widgets#7",
        "INPUT_PUBLISH": "true",
        "INPUT_WORKSPACE": str(world.workspace),
    }
    step = run_step(env, "run", cwd=world.workspace)
    assert step.exit_code == 0, step.stderr
    pulls = world.gh.pulls_of(REPO)
    assert len(pulls) == 1 and world.push_count() == 1
    assert step.outputs["outcome"] == "success"
    assert step.outputs["pull-request"] == pulls[0]["html_url"]
    assert f"| pull request | {pulls[0]['html_url']} |" in step.summary
    assert "- `widget.py`" in step.summary
