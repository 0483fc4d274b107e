"""What a skill gets at run time, through the real holon-agent with the replay engine:
directories and passed secrets in the engine's environment, redaction, refusals before the
engine starts (run and probe alike), declared artifacts, the system prompt footer."""

from __future__ import annotations

from pathlib import Path

from holon_core.agent.prompt import compile_prompt
from holon_core.models.spec import Spec
from holon_core.testing import make_task, run_agent

SECRET = "plover-granite-66120"


def skill(root: Path, name: str, extra: str = "") -> Path:
    path = root / name
    path.mkdir(parents=True)
    (path / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: test skill\n{extra}---\nbody\n", encoding="utf-8"
    )
    return path


def test_passed_secret_reaches_the_engine_redacted_and_declared_artifacts(tmp_path):
    skills = tmp_path / "skills"
    skill(
        skills,
        "publisher",
        "requires:\n  env: [PUBLISH_PHRASE]\nartifacts: [report.json, never-written.json]\n",
    )
    steps = [
        {"run": "echo phrase=$PUBLISH_PHRASE other=[$UNASKED_PHRASE] out=$HOLON_OUTPUT_DIR"},
        {"write": {"path": "{output}/report.json", "content": "{}"}},
        {"say": "done"},
    ]
    task = make_task(tmp_path / "t", replay=steps)
    env = {"PUBLISH_PHRASE": SECRET, "UNASKED_PHRASE": "unasked-value-1"}
    result = run_agent(task, env=env, args=["--skill", str(skills / "publisher")])
    manifest = result.manifest
    assert manifest is not None and result.exit_code == 0, result.stderr
    # The command saw the value (the event shows it redacted), not the unasked variable.
    events = (task.output / "evidence" / "events.ndjson").read_text()
    assert "phrase=***REDACTED*** other=[] out=" + str(task.output) in events
    for path in task.output.rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path
    assert "report.json" in manifest["artifacts"]
    assert "never-written.json" not in manifest["artifacts"]
    assert any("never-written.json" in w for w in manifest["metadata"]["warnings"])


def test_missing_required_variable_fails_before_the_engine_in_run_and_probe(tmp_path):
    skills = tmp_path / "skills"
    skill(skills, "needs-token", "requires:\n  env: [DEPLOY_PHRASE]\n")
    task = make_task(
        tmp_path / "t",
        replay=[{"write": {"path": "ran.txt", "content": "x"}}],
        spec_extra={"context": {"pass_env": ["SPEC_ONLY_PHRASE"]}},
    )
    result = run_agent(task, args=["--skill", str(skills / "needs-token")])
    assert result.exit_code == 1 and result.manifest is not None
    assert result.manifest["metadata"]["reason"] == "preflight_failed"
    error = result.manifest["error"]
    assert "skill needs-token requires DEPLOY_PHRASE" in error
    assert "context.pass_env requires SPEC_ONLY_PHRASE" in error
    assert "process" not in result.manifest["metadata"]  # the engine never started
    assert not (task.workspace / "ran.txt").exists()
    probe = run_agent(task, args=["--probe"])
    assert probe.exit_code == 1 and probe.manifest is not None
    assert "context.pass_env requires SPEC_ONLY_PHRASE" in probe.manifest["error"]


def test_probe_sees_a_spec_skills_requirement(tmp_path):
    task = make_task(tmp_path / "t", replay=[], spec_extra={"metadata": {"skills": ["needs"]}})
    skill(task.input / "skills", "needs", "requires:\n  env: [NEEDED_PHRASE]\n")
    probe = run_agent(task, args=["--probe"])
    assert probe.exit_code == 1 and probe.manifest is not None
    assert "skill needs requires NEEDED_PHRASE" in probe.manifest["error"]
    ok = run_agent(task, args=["--probe"], env={"NEEDED_PHRASE": SECRET})
    assert ok.exit_code == 0, ok.stderr


def test_credential_in_context_env_is_refused_pointing_at_pass_env(tmp_path):
    spec_extra = {"context": {"env": {"GH": "ghp_" + "a" * 36}}}
    task = make_task(tmp_path / "t", replay=[], spec_extra=spec_extra)
    result = run_agent(task)
    assert result.exit_code == 1 and result.manifest is not None
    assert result.manifest["metadata"]["reason"] == "invalid_spec"
    assert "context.pass_env" in result.manifest["error"]
    assert "ghp_" + "a" * 36 not in (task.output / "manifest.json").read_text()
    probe = run_agent(task, args=["--probe"])
    assert probe.exit_code == 1


def test_context_env_may_not_set_holon_or_adapter_variables(tmp_path):
    holon = make_task(
        tmp_path / "h", replay=[], spec_extra={"context": {"env": {"HOLON_OUTPUT_DIR": "/x"}}}
    )
    result = run_agent(holon)
    assert result.exit_code == 1 and result.manifest is not None
    assert "holon sets HOLON_OUTPUT_DIR itself" in result.manifest["error"]
    owned = make_task(
        tmp_path / "o",
        replay=[],
        spec_extra={"context": {"env": {"ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}}},
    )
    result = run_agent(owned, "claude", env={"ANTHROPIC_API_KEY": "fake-key-123456"})
    assert result.exit_code == 1 and result.manifest is not None
    assert result.manifest["metadata"]["reason"] == "preflight_failed"
    assert "context.env.ANTHROPIC_BASE_URL is the engine adapter's own" in result.manifest["error"]


def test_needs_human_has_no_error_and_keeps_its_reason(tmp_path):
    task = make_task(tmp_path / "t", replay=[{"say": "unsure"}, {"outcome": "needs_human"}])
    result = run_agent(task)
    assert result.exit_code == 2 and result.manifest is not None
    assert "error" not in result.manifest
    assert result.manifest["metadata"]["reason"] == "needs_human"


def test_a_runner_system_prompt_keeps_the_directories_footer(tmp_path):
    spec = Spec.from_mapping({"version": "v1", "kind": "Holon", "goal": "do it"})
    inp, ws, out = tmp_path / "in", tmp_path / "ws", tmp_path / "out"
    (inp / "prompts").mkdir(parents=True)
    (inp / "prompts" / "system.md").write_text("Be brief.\n", encoding="utf-8")
    prompt = compile_prompt(spec, inp, ws, out)
    assert prompt.system.startswith("Be brief.")
    assert f"output {out}" in prompt.system and "HOLON_OUTPUT_DIR" in prompt.system
    assert "HOLON_INPUT_DIR" in compile_prompt(spec, tmp_path / "none", ws, out).system
