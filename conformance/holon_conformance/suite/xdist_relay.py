"""The conformance matrix under pytest-xdist: what a worker ships, what the controller builds.

Each worker records its own rows; with every report it also ships them, the adapter's
description and the test's place in the collection in ``report.user_properties``. The
controller takes them off (they are no property for JUnit), replays them in collection order
and alone prints the matrix and writes the report, so ``-n 2`` gives a serial run's matrix.
Under ``--dist loadgroup`` each adapter's tests are one unit of work (pytest-xdist issue 1386:
its own ``xdist_group`` suffix is lost on pytest 9.2).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from holon_conformance.suite.report import AdapterInfo, Collected, Result

_index_key = pytest.StashKey[dict[str, int]]()
#: The user property a worker's report carries its records in (taken off on the controller).
SHIPPED = "holon_conformance_shipped"


def _index(item: pytest.Item) -> int:
    """The item's place in the session's collection (the same on every worker)."""
    config = item.config
    if _index_key not in config.stash:
        config.stash[_index_key] = {it.nodeid: i for i, it in enumerate(item.session.items)}
    return config.stash[_index_key].get(item.nodeid, -1)


def ship(
    item: pytest.Item,
    report: pytest.TestReport,
    name: str,
    rows: list[tuple[str, Result]],
    info: AdapterInfo | None,
) -> None:
    """On a worker: the rows and the adapter's description go to the controller with the
    report (plain data, execnet-serializable)."""
    if info is None and not rows:
        return
    shipped = {
        "index": _index(item),
        "when": report.when,
        "adapter": name,
        "info": dataclasses.asdict(info) if info is not None else None,
        "rows": [[req_id, r.outcome, r.test_id, r.message] for req_id, r in rows],
    }
    report.user_properties.append((SHIPPED, shipped))


class Controller:
    """Serial or xdist controller: collects what workers ship (a serial run ships nothing).

    ``collected`` and ``engine_names`` are the plugin's (the session's matrix, the installed
    adapters), passed in so this module needs nothing of it."""

    def __init__(
        self,
        config: pytest.Config,
        collected: Callable[[], Collected],
        engine_names: Callable[[], list[str]],
    ) -> None:
        self.config = config
        self.collected = collected
        self.engine_names = engine_names
        self.shipped: list[dict[str, Any]] = []

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_make_scheduler(self, config: pytest.Config, log: Any) -> Any:
        """``--dist loadgroup``: each adapter's tests are one group. (xdist's own groups ride
        on a suffix it writes into node ids, which pytest 9.2 no longer lets it change:
        pytest-xdist issue 1386.)"""
        if config.getoption("dist", None) != "loadgroup":
            return None
        from xdist.scheduler import LoadGroupScheduling  # type: ignore[import-untyped]

        try:
            names = self.engine_names()
        except Exception:  # a broken plugin: xdist's own grouping, the tests will say why
            return None

        class AdapterGroups(LoadGroupScheduling):  # type: ignore[misc]
            def _split_scope(self, nodeid: str) -> str:
                name = adapter_of(nodeid, names)
                return f"holon-adapter:{name}" if name else str(super()._split_scope(nodeid))

        return AdapterGroups(config, log)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        props = report.user_properties
        found = [value for key, value in props if key == SHIPPED and isinstance(value, dict)]
        if found:
            self.shipped += found
            # Internal transport: not a property for JUnit or any other report.
            props[:] = [(key, value) for key, value in props if key != SHIPPED]

    def assemble(self) -> None:
        """The xdist controller's collection, built from the workers' records in collection
        order: columns, rows and messages in the order a serial run gives them."""
        if not self.config.pluginmanager.hasplugin("dsession") or not self.shipped:
            return
        data = self.collected()
        if data.adapters:
            return  # assembled already
        from holon_conformance.suite.report import AdapterInfo
        from holon_conformance.suite.report import Result as Row

        phases = ("setup", "call")
        ordered = sorted(self.shipped, key=lambda s: (s["index"], phases.index(s["when"])))
        for shipped in ordered:
            name, info = str(shipped["adapter"]), shipped["info"]
            if info is not None:
                described = AdapterInfo(**info)
                if name not in data.adapters or described != AdapterInfo(name=name):
                    data.adapters[name] = described
            for req_id, outcome, test_id, message in shipped["rows"]:
                data.add(name, req_id, Row(outcome, test_id, message))


def adapter_of(nodeid: str, installed: list[str]) -> str | None:
    """The adapter a parametrized test id names (``...::test_x[claude]``), if any."""
    if not nodeid.endswith("]") or "[" not in nodeid:
        return None
    param = nodeid[nodeid.rindex("[") + 1 : -1]
    # The longest installed name among the id's dash-joined parts (``acp-gemini``, not ``gemini``).
    names = sorted(installed, key=len, reverse=True)
    return next((name for name in names if f"-{name}-" in f"-{param}-"), None)
