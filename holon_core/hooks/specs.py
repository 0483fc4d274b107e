"""Every holon hook, in lifecycle order. Plugins implement them with :data:`hookimpl`.

Plugins are found through the entry-point group ``holon``. An adapter package usually
implements only :func:`holon_register_engines`; the built-in ``dispatch`` plugin then routes
the other hooks to the adapter object's methods. Implement the others to change a step for
every engine (``tryfirst=True`` to take precedence over the adapter).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from holon_core.engine.adapter import (
        EngineAdapter,
        EngineReport,
        EventParser,
        LaunchPlan,
        RunContext,
        StagedSkill,
    )
    from holon_core.engine.checks import Check
    from holon_core.skill.package import ResolvedSkill

PROJECT = "holon"

_spec = pluggy.HookspecMarker(PROJECT)
#: Marker for hook implementations in plugins: ``@hookimpl def holon_...``.
hookimpl = pluggy.HookimplMarker(PROJECT)


# -- registration ----------------------------------------------------------------------------
@_spec
def holon_register_engines(register: Callable[[EngineAdapter], None]) -> None:
    """Register engine adapters.

    :param register: call it once per adapter object, e.g. ``register(ClaudeAdapter())``.
        Registering two adapters under one name is an error that names both plugins.

    .. versionadded:: 0.1
    """


# -- preflight ---------------------------------------------------------------------------------
@_spec
def holon_preflight(engine: EngineAdapter, env: Mapping[str, str]) -> list[Check] | None:
    """Checks to run before the engine starts (and in ``--probe``).

    :param engine: the selected adapter.
    :param env: the agent's environment (credentials are read from it, never written).
    :returns: checks; every plugin's list is concatenated. A failing check stops the run
        with exit 1 and a failure manifest naming the check and its hint.

    .. versionadded:: 0.1
    """


# -- skill staging -----------------------------------------------------------------------------
@_spec(firstresult=True)
def holon_stage_skills(run: RunContext, skills: list[ResolvedSkill]) -> list[StagedSkill] | None:
    """Make the resolved skills available to the engine.

    Stops at first non-None result. The dispatch plugin stages natively when the adapter
    declares ``native_skills``; the built-in ``prompt-fallback`` plugin (``trylast``) injects
    them into the system prompt within the skills ADR's caps otherwise.

    :param run: the run; stage only below ``run.run_dir``, never into the workspace.
    :param skills: validated skills in deterministic order.
    :returns: one :class:`StagedSkill` per skill, recorded in ``manifest.metadata.skills``.

    .. versionadded:: 0.1
    """


# -- launch ------------------------------------------------------------------------------------
@_spec(firstresult=True)
def holon_launch(run: RunContext) -> LaunchPlan | None:
    """Build the headless command for the engine.

    Stops at first non-None result. The core starts the plan with stdin closed (or fed
    ``plan.stdin`` then closed), no TTY, in its own session, under the supervisor.

    :param run: the run, with the compiled prompt, model and step limit.
    :returns: a :class:`LaunchPlan` whose ``env`` is the engine's complete environment.

    .. versionadded:: 0.1
    """


@_spec(firstresult=True)
def holon_event_parser(run: RunContext) -> EventParser | None:
    """A parser for the engine's stdout.

    Stops at first non-None result.

    :param run: the run.
    :returns: an :class:`EventParser` that yields normalized events and fills an
        :class:`EngineReport` (terminal event, error flag, usage, session id, ...).

    .. versionadded:: 0.1
    """


# -- manifest ----------------------------------------------------------------------------------
@_spec
def holon_manifest_metadata(run: RunContext, report: EngineReport) -> dict[str, Any] | None:
    """Extra keys for ``manifest.metadata``.

    :param run: the finished run.
    :param report: what the engine's stream reported.
    :returns: a mapping merged into the metadata (later plugins win on equal keys; keys
        holon owns, such as ``reason`` or ``engine``, cannot be replaced).

    .. versionadded:: 0.1
    """
