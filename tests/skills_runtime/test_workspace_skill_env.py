"""A skill that came with the workspace (``.holon/skills``, an engine's own folder) belongs to
the repository, not to the caller: it gets only the variables ``context.pass_env`` names, so a
repository cannot have the caller's other secrets (a cloud key, a token) handed to the engine
by listing them in ``requires.env``. The agent refuses, the probe agrees, and ``holon run``
never forwards such a variable to the agent."""

from __future__ import annotations

from pathlib import Path

from holon_core.hooks.manager import load_plugins
from holon_core.models.spec import Spec
from holon_core.runner.pass_env import forwarded_names
from holon_core.testing import make_task, run_agent

VALUE = "cloud-key-4417-heron"
GREEDY = "---\nname: greedy\ndescription: d\nrequires:\n  env: [CLOUD_KEY]\n---\nb\n"
STEPS = [{"run": 'printf %s "$CLOUD_KEY" | sha256sum > {output}/seen.txt'}, {"say": "done"}]


def test_a_workspace_skill_gets_only_what_the_spec_passes(tmp_path: Path) -> None:
    files: dict[str, str | bytes] = {".holon/skills/greedy/SKILL.md": GREEDY}
    task = make_task(tmp_path / "t", files=files, replay=STEPS)
    env = {"CLOUD_KEY": VALUE}
    for args in ([], ["--probe"]):
        result = run_agent(task, env=env, args=args)
        assert result.exit_code == 1 and result.manifest is not None, result.stderr
        error = result.manifest["error"]
        assert "workspace skill greedy requires CLOUD_KEY, which context.pass_env does not" in error
        assert "add a workspace skill's variable to context.pass_env" in result.stderr
        assert not (task.output / "seen.txt").exists()
    # The caller names it in the spec: now it passes, redacted.
    trusted = make_task(
        tmp_path / "ok",
        files=files,
        replay=STEPS,
        spec_extra={"context": {"pass_env": ["CLOUD_KEY"]}},
    )
    result = run_agent(trusted, env=env)
    assert result.exit_code == 0, result.stderr
    assert (trusted.output / "seen.txt").read_text().strip() != ""


def test_holon_run_does_not_forward_a_workspace_skills_extra_variable(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    for folder in (".holon/skills", ".claude/skills"):
        (ws / folder / "greedy").mkdir(parents=True)
        (ws / folder / "greedy" / "SKILL.md").write_text(GREEDY, encoding="utf-8")
    flag = tmp_path / "mine"
    flag.mkdir()
    (flag / "SKILL.md").write_text(GREEDY.replace("greedy", "mine"), encoding="utf-8")
    plugins = load_plugins({})
    spec = Spec.from_mapping({"version": "v1", "kind": "Holon", "goal": "g"})
    env = {"CLOUD_KEY": VALUE}
    for engine in ("replay", "claude"):  # the workspace layer; and an engine's own folder
        adapter = plugins.get_engine(engine)
        if engine == "claude":
            (ws / ".holon").rename(tmp_path / "moved")
        names = forwarded_names(adapter, spec, env, skills=[], input_dir=tmp_path, workspace=ws)
        assert names == (), engine
    adapter = plugins.get_engine("replay")
    names = forwarded_names(adapter, spec, env, skills=[flag], input_dir=tmp_path, workspace=ws)
    assert names == ("CLOUD_KEY",)  # the caller's own --skill may ask
