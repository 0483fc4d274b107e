"""Every hook is documented with its exact signature and has a test (test_hook_<name>)."""

from __future__ import annotations

import inspect
import re
import sys
from pathlib import Path

import pytest

from holon_core import hookimpl
from holon_core.builtin.replay import ReplayEngine
from holon_core.engine.adapter import Capabilities, EngineAdapter, EventParser, LaunchPlan
from holon_core.engine.checks import Check
from holon_core.errors import EngineNotFound, PluginError
from holon_core.hooks import specs as hookspecs
from holon_core.hooks.manager import HolonPlugins, load_plugins

DOCS = Path(__file__).resolve().parents[1] / "docs" / "hooks.md"
HOOKS = sorted(name for name in dir(hookspecs) if name.startswith("holon_"))


@pytest.mark.parametrize("name", HOOKS)
def test_hook_is_documented_with_its_signature(name):
    params = ", ".join(inspect.signature(getattr(hookspecs, name)).parameters)
    assert f"## {name}({params})" in DOCS.read_text()


@pytest.mark.parametrize("name", HOOKS)
def test_hook_has_a_test(name):
    assert f"test_hook_{name}" in globals(), f"write test_hook_{name}"


@pytest.fixture
def plugins():
    return load_plugins({})


class _Echo(EngineAdapter):
    name = "echo"
    capabilities = Capabilities(needs_credentials=False)

    def launch(self, run):
        return LaunchPlan(argv=["true"], env={}, cwd=run.workspace)

    def event_parser(self, run):
        raise NotImplementedError


def test_hook_holon_register_engines(plugins):
    class Plugin:
        @hookimpl
        def holon_register_engines(self, register):
            register(_Echo())

    plugins.register(Plugin(), "echo-plugin")
    plugins.collect_engines()
    assert plugins.get_engine("echo").name == "echo"
    assert plugins.engine_owner("echo") == "echo-plugin"
    assert "replay" in plugins.engine_names()


def test_duplicate_engine_names_are_an_error(plugins):
    class Twin:
        @hookimpl
        def holon_register_engines(self, register):
            register(ReplayEngine())

    plugins.register(Twin(), "twin")
    with pytest.raises(PluginError, match='"replay" is registered by both'):
        plugins.collect_engines()


def test_unknown_hook_name_is_caught():
    manager = HolonPlugins()

    class Typo:
        @hookimpl
        def holon_regster_engines(self, register):  # sic
            pass

    manager.register(Typo(), "typo")
    with pytest.raises(PluginError, match="unknown hook"):
        manager.check_pending()


def test_unknown_engine_lists_installed(plugins):
    with pytest.raises(EngineNotFound, match=r"installed: .*replay"):
        plugins.get_engine("nope")


def test_hook_holon_preflight(plugins):
    class Extra:
        @hookimpl
        def holon_preflight(self, engine, env):
            return [Check("disk", env.get("DISK") == "ok", "disk check")]

    plugins.register(Extra(), "extra")
    checks = plugins.preflight(plugins.get_engine("replay"), {"DISK": "ok"})
    assert [c.name for c in checks] == ["engine_binary", "disk"]
    assert all(c.ok for c in checks)


def _run_context(tmp_path, engine):
    from holon_core.engine.adapter import Prompt, RunContext
    from holon_core.models.spec import Spec

    spec = Spec.from_mapping({"version": "v1", "kind": "Holon", "goal": "x"})
    return RunContext(
        engine=engine,
        spec=spec,
        run_id="r",
        input_dir=tmp_path,
        workspace=tmp_path,
        output_dir=tmp_path,
        state_dir=tmp_path,
        run_dir=tmp_path,
        env={},
        prompt=Prompt("sys", "user"),
    )


def _skill(tmp_path, name="demo-skill"):
    from holon_core.skill.package import load_skill

    d = tmp_path / "skills" / name
    d.mkdir(parents=True)
    (d / "SKILL.md").write_text(f"---\nname: {name}\ndescription: Says hi\n---\nBody text\n")
    return load_skill(d, "flag")


def test_hook_holon_stage_skills(plugins, tmp_path):
    run = _run_context(tmp_path, plugins.get_engine("replay"))
    staged = plugins.stage_skills(run, [_skill(tmp_path)])
    assert [(s.name, s.staging) for s in staged] == [("demo-skill", "fallback")]
    assert "## Skill: demo-skill" in run.prompt.system and "Body text" in run.prompt.system

    class First:
        @hookimpl(tryfirst=True)
        def holon_stage_skills(self, run, skills):
            return []

    plugins.register(First(), "first")
    assert plugins.stage_skills(run, [_skill(tmp_path, "other")]) == []


def test_hook_holon_launch(plugins, tmp_path):
    run = _run_context(tmp_path, plugins.get_engine("replay"))
    plan = plugins.launch(run)
    assert plan.argv[:3] == [sys.executable, "-m", "holon_core.builtin.replay_engine"]
    assert plan.env["HOME"] == str(run.home) and "PYTHONPATH" in plan.env

    class Wrapper:
        @hookimpl(tryfirst=True)
        def holon_launch(self, run):
            return LaunchPlan(argv=["echo", "wrapped"], env={}, cwd=run.workspace)

    plugins.register(Wrapper(), "wrapper")
    assert plugins.launch(run).argv == ["echo", "wrapped"]


def test_hook_holon_event_parser(plugins, tmp_path):
    run = _run_context(tmp_path, plugins.get_engine("replay"))
    parser = plugins.event_parser(run)
    assert isinstance(parser, EventParser)
    events = parser.feed('{"type": "result", "outcome": "success", "text": "hi", "turns": 2}')
    assert [e.type for e in events] == ["result"]
    assert parser.report.terminal_seen and parser.report.final_text == "hi"


def test_hook_holon_manifest_metadata(plugins, tmp_path):
    run = _run_context(tmp_path, plugins.get_engine("replay"))

    class Extra:
        @hookimpl
        def holon_manifest_metadata(self, run, report):
            return {"ticket": "ABC-1"}

    plugins.register(Extra(), "extra")
    meta = plugins.manifest_metadata(run, parser_report())
    assert meta["ticket"] == "ABC-1" and "replay_script" in meta


def parser_report():
    from holon_core.engine.adapter import EngineReport

    return EngineReport()


def test_plugins_cli_json(capsys):
    import json

    from holon_core.cli.main import main

    assert main(["plugins", "--json"]) == 0
    data = {p["name"]: p for p in json.loads(capsys.readouterr().out)}
    assert data["replay"]["engines"] == ["replay"]
    assert data["replay"]["distribution"] == "holon-core"
    assert "holon_register_engines" in data["replay"]["hooks"]
    assert data["replay"]["capabilities"]["replay"]["native_skills"] is False


def test_disable_plugins_knob():
    plugins = load_plugins({"HOLON_DISABLE_PLUGINS": "replay"})
    assert "replay" not in plugins.engine_names()


def test_hookspecs_follow_the_template():
    for name in HOOKS:
        doc = getattr(hookspecs, name).__doc__ or ""
        assert re.search(r"\.\. versionadded::", doc), name
