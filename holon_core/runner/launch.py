"""Starting holon-agent for a run: which engine it will pick, its argv and environment, on
this machine or in a container, with the progress shown while it runs."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from holon_core.agent.select import select_engine
from holon_core.errors import HolonError
from holon_core.hooks.manager import load_plugins
from holon_core.models.spec import Spec
from holon_core.runner.agent_env import agent_command, agent_env
from holon_core.runner.container import Container, prepare, runtime_env
from holon_core.runner.layout import RunLayout
from holon_core.runner.options import RunOptions
from holon_core.runner.pass_env import forwarded_names
from holon_core.runner.process import AgentExit, run_agent_process
from holon_core.runner.progress import EventTail, Progress
from holon_core.workspace import Snapshot


def choose_engine(
    flag: str | None,
    env: Mapping[str, str],
    spec: Spec,
    *,
    skills: list[Path],
    input_dir: Path,
    snap: Path,
) -> tuple[str | None, tuple[str, ...]]:
    """The engine the agent will pick, the variables its adapter names and the run passes.

    Failure to choose is left to the agent, which records it in a manifest.
    """
    try:
        adapter = select_engine(load_plugins(env), flag, env, spec)
    except HolonError:
        return flag, ()
    names = (*adapter.credential_env, *adapter.passthrough_env)
    if adapter.name == "replay":  # the replay adapter's own opt-in list (builtin/replay.py)
        passed = env.get("HOLON_REPLAY_PASS_ENV", "").split(",")
        names += tuple(name.strip() for name in passed if name.strip())
    names += forwarded_names(adapter, spec, env, skills=skills, input_dir=input_dir, workspace=snap)
    return adapter.name, names


def launch_agent(
    options: RunOptions,
    env: Mapping[str, str],
    layout: RunLayout,
    *,
    skills: list[Path],
    engine_vars: tuple[str, ...],
    progress: Progress,
    cancelled: Callable[[], bool],
    container: Container | None = None,
) -> AgentExit:
    argv = agent_command(env) if container is None else []
    if options.serve:
        argv += ["serve", "--once"]
    argv += ["--input", str(layout.input), "--workspace", str(layout.snapshot)]
    argv += ["--output", str(layout.output), "--state", str(layout.state)]
    if options.engine:
        argv += ["--engine", options.engine]
    if options.model:
        argv += ["--model", options.model]
    for skill in skills:
        argv += ["--skill", str(skill)]
    extra = {"HOLON_TIMEOUT": f"{options.timeout:g}"} if options.timeout else {}
    if options.max_cost_usd is not None:
        extra["HOLON_MAX_COST_USD"] = f"{options.max_cost_usd:g}"
    if options.record is not None:
        extra["HOLON_RECORD"] = str(options.record)
    child_env = agent_env(
        env, home=layout.home, tmp=layout.tmp, engine_vars=engine_vars, extra=extra
    )
    if container is not None:  # the runtime gets the user's environment; the agent gets less
        argv = container.command(layout, argv, child_env, engine_vars)
        child_env = runtime_env(env)
    tail = EventTail(layout.output / "evidence" / "events.ndjson")

    def on_tick(elapsed: float) -> None:
        for event in tail.read():
            progress.event(event, elapsed)
        progress.tick(elapsed)

    # The agent enforces the timeout itself; we only step in if it overruns by a margin.
    deadline = options.timeout + 60.0 if options.timeout else None
    try:
        exited = run_agent_process(
            argv,
            child_env,
            layout.root,
            (layout.agent_log("stdout"), layout.agent_log("stderr")),
            on_tick=on_tick,
            timeout=deadline,
            cancelled=cancelled,
        )
    finally:
        progress.finish()
        if container is not None:
            container.remove(env)
    return exited


def make_container(
    options: RunOptions,
    layout: RunLayout,
    *,
    engine: str | None,
    engine_vars: tuple[str, ...],
    env: Mapping[str, str],
    snapshot: Snapshot,
) -> Container | None:
    if options.container is None:
        return None
    return prepare(
        options.container,
        run_id=layout.run_id,
        engine=engine,
        engine_vars=engine_vars,
        env=env,
        snapshot=snapshot,
    )
