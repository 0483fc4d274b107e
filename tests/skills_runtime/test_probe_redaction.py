"""``holon-agent --probe`` keeps the values of the variables a run would pass (the spec's
``context.pass_env``, a skill's ``requires.env``) out of everything it prints and writes, like
the adapter's credentials; the variables' names are not secret-shaped, so only the pass list
can be what redacts them."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from holon_core.testing import make_task, run_agent

SPEC_VALUE = "lynx-cobalt-48213"
SKILL_VALUE = "ibis-marble-90562"


def test_probe_redacts_pass_env_and_requires_env_values(tmp_path: Path) -> None:
    task = make_task(
        tmp_path / "t",
        replay=[],
        spec_extra={
            "context": {"pass_env": ["DEPLOY_REGION"]},
            "metadata": {"name": "t", "skills": ["publisher"]},
        },
    )
    skill = task.input / "skills" / "publisher"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: publisher\ndescription: d\nrequires:\n  env: [PUBLISH_TARGET]\n---\nb\n",
        encoding="utf-8",
    )
    # The probe names its directories in every line it prints; here they hold the values.
    workspace = task.workspace.rename(tmp_path / "t" / f"ws-{SPEC_VALUE}")
    output = task.output.rename(tmp_path / "t" / f"out-{SKILL_VALUE}")
    task = replace(task, workspace=workspace, output=output)
    env = {"DEPLOY_REGION": SPEC_VALUE, "PUBLISH_TARGET": SKILL_VALUE}
    probe = run_agent(task, args=["--probe"], env=env)
    assert probe.exit_code == 0, probe.stderr
    assert "variables passed to the engine: DEPLOY_REGION, PUBLISH_TARGET" in probe.stderr
    assert "workspace" in probe.stderr and "ws-***" in probe.stderr
    for value in (SPEC_VALUE, SKILL_VALUE):
        assert value not in probe.stdout and value not in probe.stderr
        for path in task.root.rglob("*"):
            if path.is_file() and not path.is_relative_to(task.input):
                assert value.encode() not in path.read_bytes(), path
