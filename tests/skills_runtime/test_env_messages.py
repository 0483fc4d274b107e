"""What a user reads when the run's variables are wrong: every refusal names the variable and
who asked for it, says what to do next, never quotes a value; a skill cannot take over a name
holon sets (``HOME`` would hand the engine the caller's real home)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from holon_core.skill.env_rules import PassEnv, context_env_problems, pass_env_problems
from holon_core.testing import make_task, run_agent

PLAIN_SECRET = "plainvalue-8812"  # not token-shaped: only its name says it is a secret


def test_context_env_refusals_name_the_variable_not_the_value() -> None:
    env = {
        "API_TOKEN": PLAIN_SECRET,
        "DB_PASSWORD": PLAIN_SECRET,
        "bad name": "x",
        "TOKENIZERS_PARALLELISM": "false",
        "GIT_AUTHOR_NAME": "Jane",
        "MONKEY": "x",
        "OPTIONAL_KEY": "",
    }
    problems = context_env_problems(env)
    assert len(problems) == 3, problems
    assert problems[0].startswith("context.env.API_TOKEN is named like a secret")
    assert "list API_TOKEN in context.pass_env" in problems[0]
    assert problems[1].startswith("context.env.DB_PASSWORD is named like a secret")
    assert problems[2] == (
        "context.env: 'bad name' is not a variable name "
        "(letters, digits and underscores, not starting with a digit)"
    )
    assert not any(PLAIN_SECRET in problem for problem in problems)


def test_missing_variables_say_which_and_how_to_fix() -> None:
    names = ["SPEC_ONLY", "EMPTY_ONE", "9bad", "HOLON_X"]
    needed = PassEnv.collect(names, [("pub", ["SPEC_ONLY", "HOME", "SKILL_ONLY"], "flag")])
    env = {"EMPTY_ONE": "", "HOME": "/home/someone"}
    assert needed.problems(env) == [
        "context.pass_env and skill pub requires SPEC_ONLY, which is not set",
        "context.pass_env requires EMPTY_ONE, which is set but empty",
        "skill pub requires HOME, which holon sets itself for the engine; "
        "remove it from the skill's requires.env",
        "skill pub requires SKILL_ONLY, which is not set",
    ]  # 9bad and HOLON_X: pass_env_problems speaks for them, once
    assert len(pass_env_problems(names)) == 2
    assert needed.hint(env).startswith("export SPEC_ONLY, EMPTY_ONE, SKILL_ONLY where holon runs")


def test_a_skill_requiring_home_is_refused_before_the_engine(tmp_path: Path) -> None:
    skill = tmp_path / "homey"
    skill.mkdir()
    (skill / "SKILL.md").write_text(
        "---\nname: homey\ndescription: d\nrequires:\n  env: [HOME, HOLON_OUTPUT_DIR]\n---\nb\n",
        encoding="utf-8",
    )
    task = make_task(
        tmp_path / "t", replay=[{"run": "echo $HOME > {output}/home.txt"}, {"say": "done"}]
    )
    env = {"HOME": str(tmp_path / "real-home"), "HOLON_OUTPUT_DIR": "/elsewhere"}
    reasons = []
    for args in (["--skill", str(skill)], ["--skill", str(skill), "--probe"]):
        result = run_agent(task, env=env, args=args)
        assert result.exit_code == 1 and result.manifest is not None, result.stderr
        error = result.manifest["error"]
        assert "skill homey requires HOME, which holon sets itself for the engine" in error
        assert "skill homey requires HOLON_OUTPUT_DIR, which holon sets itself" in error
        assert not (task.output / "home.txt").exists()
        assert "process" not in result.manifest["metadata"]
        reasons.append(result.manifest["metadata"]["reason"])
    assert reasons == ["preflight_failed", "preflight_failed"]  # the probe says what the run does


def test_secret_named_context_env_fails_the_run_without_writing_the_value(tmp_path: Path) -> None:
    spec_extra = {"context": {"env": {"DEPLOY_TOKEN": PLAIN_SECRET}}}
    task = make_task(tmp_path / "t", replay=[{"say": "done"}], spec_extra=spec_extra)
    result = run_agent(task)
    assert result.exit_code == 1 and result.manifest is not None
    assert result.manifest["metadata"]["reason"] == "invalid_spec"
    error = result.manifest["error"]
    assert "field 'context.env': context.env.DEPLOY_TOKEN is named like a secret" in error
    assert PLAIN_SECRET not in result.stdout + result.stderr
    for path in task.output.rglob("*"):
        if path.is_file():
            assert PLAIN_SECRET.encode() not in path.read_bytes(), path


def test_a_value_too_short_to_redact_is_passed_with_a_warning(tmp_path: Path) -> None:
    spec_extra = {"context": {"pass_env": ["REGION", "LONG_ENOUGH"]}}
    steps = [{"run": "echo region=$REGION"}, {"say": "done"}]
    task = make_task(tmp_path / "t", replay=steps, spec_extra=spec_extra)
    result = run_agent(task, env={"REGION": "eu", "LONG_ENOUGH": "long-enough-value"})
    assert result.exit_code == 0 and result.manifest is not None, result.stderr
    warnings = result.manifest["metadata"]["warnings"]
    assert warnings == [
        "context.pass_env passes REGION, whose value is shorter than 6 characters: "
        "it is passed but not redacted"
    ]
    assert "region=eu" in (task.output / "evidence" / "events.ndjson").read_text()


def test_a_run_refused_for_a_missing_variable_redacts_the_passed_ones(tmp_path: Path) -> None:
    spec_extra = {"context": {"pass_env": ["REGION_NAME", "NOT_EXPORTED"]}}
    task = make_task(tmp_path / "t", replay=[{"say": "done"}], spec_extra=spec_extra)
    value = "tern-nickel-30871"
    workspace = task.workspace.rename(tmp_path / "t" / f"ws-{value}")  # recorded in checks
    result = run_agent(replace(task, workspace=workspace), env={"REGION_NAME": value})
    assert result.exit_code == 1 and result.manifest is not None, result.stderr
    assert "context.pass_env requires NOT_EXPORTED, which is not set" in result.manifest["error"]
    assert value not in result.stdout + result.stderr
    for path in task.output.rglob("*"):
        if path.is_file():
            assert value.encode() not in path.read_bytes(), path


def test_probe_refuses_malformed_env_lists_instead_of_crashing(tmp_path: Path) -> None:
    task = make_task(tmp_path / "t", replay=[])
    spec = task.spec.read_text(encoding="utf-8")
    task.spec.write_text(spec + "context:\n  env: {1: x}\n  pass_env: [2]\n", encoding="utf-8")
    probe = run_agent(task, args=["--probe"])
    assert probe.exit_code == 1 and "Traceback" not in probe.stderr, probe.stderr
    assert "context.env: '1' is not a variable name" in probe.stderr
    assert "context.pass_env: '2' is not a variable name" in probe.stderr
    task.spec.write_text(spec + "context:\n  env: [A]\n  pass_env: GITHUB_TOKEN\n", "utf-8")
    probe = run_agent(task, args=["--probe"])
    assert probe.exit_code == 1, probe.stderr  # as the run would refuse it
    assert "context.env must be a mapping" in probe.stderr
    assert "context.pass_env must be a list of names" in probe.stderr
