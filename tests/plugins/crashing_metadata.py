"""A plugin whose manifest hook raises: the run's record must survive it (HOLON_PLUGINS)."""

from __future__ import annotations

from typing import Any

from holon_core import hookimpl


@hookimpl
def holon_manifest_metadata(run: Any, report: Any) -> dict[str, Any]:
    raise RuntimeError("plugin bug")
