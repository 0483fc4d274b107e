"""Which adapter runs: ``--engine``, else ``HOLON_ENGINE``, else the spec's ``engine.name``,
else the only installed adapter (the built-in replay engine does not count)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from holon_core.errors import EngineNotFound

if TYPE_CHECKING:
    from holon_core.engine.adapter import EngineAdapter
    from holon_core.hooks.manager import HolonPlugins
    from holon_core.models.spec import Spec

BUILTIN_ENGINES = ("replay",)


def select_engine(
    plugins: HolonPlugins,
    flag: str | None,
    env: Mapping[str, str],
    spec: Spec | None,
    *,
    spec_engine: str | None = None,
) -> EngineAdapter:
    """``spec_engine``: the spec's ``engine.name`` when the caller holds no :class:`Spec`
    (the probe and the run's admission read the spec without pydantic)."""
    name = flag or env.get("HOLON_ENGINE") or (spec.engine.name if spec else spec_engine)
    if name:
        return plugins.get_engine(name)
    installed = [n for n in plugins.engine_names() if n not in BUILTIN_ENGINES]
    if len(installed) == 1:
        return plugins.get_engine(installed[0])
    listed = ", ".join(plugins.engine_names())
    if not installed:
        raise EngineNotFound(
            f"no engine adapter is installed (available: {listed})",
            hint="pip install an adapter (holon-adapter-<engine>), or pass --engine replay",
        )
    raise EngineNotFound(
        f"several engines are installed ({listed}) and none was chosen",
        hint="pass --engine NAME or set HOLON_ENGINE",
    )
