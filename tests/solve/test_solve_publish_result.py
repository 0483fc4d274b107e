"""``holon solve`` reads ``publish-result.json`` from an output dir the engine can write: a
link planted there is not followed (a FIFO would hang the read, a link to ``/dev/zero`` fill
memory), as every other file of the record is read."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import TYPE_CHECKING

import yaml

if TYPE_CHECKING:
    from .kit import World

PLANTED = {
    "ok": True,
    "actions": [{"action": "pull_request", "status": "created", "url": "https://x.test/pr/1"}],
}


def test_a_publish_result_planted_as_a_link_is_not_read(world: World, tmp_path):
    planted = tmp_path / "planted.json"
    planted.write_text(json.dumps(PLANTED))
    steps = [{"run": f"ln -s {planted} {{output}}/publish-result.json"}, {"say": "done"}]
    (tmp_path / "replay.yaml").write_text(yaml.safe_dump(steps))
    env = world.env(HOLON_REPLAY_SCRIPT=str(tmp_path / "replay.yaml"))
    done = world.solve("acme/widgets#7", "--engine", "replay", env=env)
    assert done.result, done.stderr
    assert done.result["solve"]["publish"] is None
    assert "x.test" not in done.stdout


def test_a_publish_result_of_the_wrong_shape_is_reported_not_raised(world: World, tmp_path):
    odd = {"ok": True, "actions": ["not an action", 5, {"action": "comment", "status": "created"}]}
    steps = [
        {"write": {"path": "{output}/publish-result.json", "content": json.dumps(odd)}},
        {"say": "done"},
    ]
    (tmp_path / "replay.yaml").write_text(yaml.safe_dump(steps))
    env = world.env(HOLON_REPLAY_SCRIPT=str(tmp_path / "replay.yaml"))
    argv = ("acme/widgets#7", "--engine", "replay")
    done = world.solve(*argv, env=env)
    assert done.result, done.stderr
    human = subprocess.run(
        [sys.executable, "-m", "holon_core", "solve", *argv, "--workspace", str(world.workspace)],
        env=env, capture_output=True, text=True, timeout=240, check=False,
    )  # fmt: skip
    assert "Traceback" not in human.stderr
    assert "published: comment created" in human.stdout
