"""The action's inputs, as the composite step hands them over (``INPUT_*`` variables, never
``${{ }}`` in a script, so no input can inject shell), turned into one holon command.

Exactly one task: ``spec`` (a spec.yaml for ``holon run``), ``goal`` (the task in words) or
``solve`` (an issue or PR for ``holon solve``); ``publish`` only with ``solve``. A refusal
names the input and the fix.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path


class ActionInputError(Exception):
    """An input the action cannot use; the message names it and the fix."""


@dataclass(frozen=True)
class ActionInputs:
    engine: str
    spec: str
    goal: str
    solve: str
    model: str
    max_cost: str
    publish: bool
    workspace: Path


def read_inputs(env: Mapping[str, str]) -> ActionInputs:
    def get(name: str) -> str:
        return env.get(f"INPUT_{name}", "").strip()

    tasks = [name for name in ("SPEC", "GOAL", "SOLVE") if get(name)]
    if len(tasks) != 1:
        given = ", ".join(t.lower() for t in tasks) or "none"
        raise ActionInputError(
            f"give exactly one task: the input spec (a spec.yaml), goal (the task in words) "
            f"or solve (owner/repo#N or an issue/PR URL); given: {given}"
        )
    publish = get("PUBLISH").lower() or "false"
    if publish not in ("true", "false"):
        raise ActionInputError(f"the input publish must be true or false, not {publish!r}")
    if publish == "true" and not get("SOLVE"):
        raise ActionInputError("the input publish needs solve: only holon solve publishes")
    max_cost = get("MAX_COST")
    if max_cost and not _positive_number(max_cost.lstrip("$")):
        raise ActionInputError(
            f"the input max-cost must be a positive amount in USD such as 2.50, not {max_cost!r}"
        )
    workspace = get("WORKSPACE") or env.get("GITHUB_WORKSPACE") or "."
    return ActionInputs(
        engine=get("ENGINE"),
        spec=get("SPEC"),
        goal=get("GOAL"),
        solve=get("SOLVE"),
        model=get("MODEL"),
        max_cost=max_cost.lstrip("$"),
        publish=publish == "true",
        workspace=Path(workspace),
    )


def holon_argv(inputs: ActionInputs, output: Path) -> list[str]:
    """The ``holon`` arguments (after the program) for these inputs, writing into ``output``."""
    if inputs.solve:
        argv = ["solve", inputs.solve]
    elif inputs.spec:
        argv = ["run", inputs.spec]
    else:
        argv = ["run", "--goal", inputs.goal]
    argv += ["--workspace", str(inputs.workspace), "--output", str(output)]
    if inputs.engine:
        argv += ["--engine", inputs.engine]
    if inputs.model:
        argv += ["--model", inputs.model]
    if inputs.max_cost:
        argv += ["--max-cost", inputs.max_cost]
    if inputs.publish:
        argv.append("--publish")
    return argv


def _positive_number(value: str) -> bool:
    try:
        return float(value) > 0
    except ValueError:
        return False
