"""The pytest side of the suite: options, adapter parametrization, outcomes, matrix, report.

Loaded through the ``holon-conformance`` pytest11 entry point and inert unless a test uses
the ``holon_target`` fixture: ``--holon-adapter NAME`` (repeatable, ``all``) selects adapters
for classes without ``adapter_name``; with no test path given, the packaged RFC-0002 suite
module is collected.

Under pytest-xdist with ``--dist loadgroup`` (``make conformance``: ``-n 2``) each adapter's
tests are one unit of work: they run on one worker, which builds the adapter's target (and
caches its runs) once, while the adapters are dealt out to the workers as they free up. A
worker ships what it records (the rows of each report, the adapter's description) to the
controller in the report's ``user_properties``; the controller replays them in collection
order and alone prints the matrix and writes ``--holon-report``: the same as a serial run.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import warnings
from collections.abc import Generator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from holon_conformance.suite.xdist_relay import Controller, ship

if TYPE_CHECKING:
    from holon_conformance.suite.harness import Target
    from holon_conformance.suite.report import Collected, Result
    from holon_core.hooks.manager import HolonPlugins

SUITE_MODULE = Path(__file__).with_name("run_rfc0002.py")
PARAM = "holon_adapter_name"
_collected_key = pytest.StashKey["Collected"]()
_targets_key = pytest.StashKey[dict[str, "Target"]]()
_plugins_key = pytest.StashKey["HolonPlugins"]()
_passed_over_key = pytest.StashKey[dict[str, str]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("holon", "holon conformance (RFC-0002)")
    group.addoption(
        "--holon-adapter",
        action="append",
        default=[],
        metavar="NAME",
        help="certify this adapter (repeatable; 'all' = every installed adapter)",
    )
    group.addoption("--holon-report", metavar="PATH", help="write the JSON report here")
    group.addoption(
        "--holon-lenient-tmp",
        action="store_true",
        help="report a run's writes to the shared /tmp as a warning, not a RFC2-OUT-003 failure",
    )
    group.addoption(
        "--holon-strict-tmp",
        action="store_true",
        help="the default since suite 0.1.1 (kept so older command lines still work)",
    )
    group.addoption(
        "--holon-level",
        choices=("must", "should"),
        default="must",
        help="lowest level whose failures fail the test run (default: must; SHOULD -> WARN)",
    )


def pytest_load_initial_conftests(
    early_config: pytest.Config, parser: pytest.Parser, args: list[str]
) -> None:
    """``pytest --holon-adapter X`` with no test path runs the packaged suite module."""
    known = early_config.known_args_namespace
    # A printed id of the packaged suite reads ``::TestRFC0002::test_x[name]`` (the module is
    # an initial path, so its part of the id is empty): pasted back, it names the module.
    for index, arg in enumerate(args):
        if arg.startswith("::"):
            args[index] = f"{SUITE_MODULE}{arg}"
    paths = [a for a in getattr(known, "file_or_dir", None) or [] if not a.startswith("::")]
    named = any(a.startswith(str(SUITE_MODULE)) for a in args)
    if getattr(known, "holon_adapter", None) and not paths and not named:
        args.append(str(SUITE_MODULE))


class HolonConformanceWarning(UserWarning):
    """A SHOULD requirement failed: the row is WARN and the test is reported as xfailed."""


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "holon_req(*ids): RFC requirement ids a test checks")
    config.addinivalue_line("markers", "holon_cap(name): adapter capability the test needs")
    if not _is_worker(config):
        relay = Controller(
            config, lambda: _collected(config), lambda: _plugins(config).engine_names()
        )
        config.pluginmanager.register(relay, "holon-conformance-controller")
    if config.getoption("holon_adapter", None):
        _check_installed(config)


def _check_installed(config: pytest.Config) -> None:
    """One clear usage error for an adapter that is not installed, not one failure per check."""
    names = selected_adapters(config)
    try:
        installed = _plugins(config).engine_names()
    except Exception as exc:  # a broken plugin: say so once
        raise pytest.UsageError(f"holon plugins cannot be loaded: {exc}") from exc
    missing = [name for name in names if name not in installed]
    if missing:
        raise pytest.UsageError(
            f"--holon-adapter: no adapter named {', '.join(map(repr, missing))} is installed "
            f"(installed: {', '.join(installed)}). Install its distribution (for example "
            "`pip install holon-adapter-NAME`) or load it with HOLON_PLUGINS=module; "
            "`holon plugins` lists what is installed."
        )


def _plugins(config: pytest.Config) -> HolonPlugins:
    if _plugins_key not in config.stash:
        from holon_core.hooks.manager import load_plugins

        config.stash[_plugins_key] = load_plugins()
    return config.stash[_plugins_key]


def _collected(config: pytest.Config) -> Collected:
    if _collected_key not in config.stash:
        from holon_conformance.suite.registry import load_registry
        from holon_conformance.suite.report import Collected

        level = config.getoption("holon_level") or "must"
        config.stash[_collected_key] = Collected(load_registry(), level)
    return config.stash[_collected_key]


def _requested(config: pytest.Config) -> list[str]:
    """The names ``--holon-adapter`` gives (repeatable, comma lists), ``all`` unexpanded."""
    raw = config.getoption("holon_adapter") or []
    return [name for value in raw for part in value.split(",") if (name := part.strip())]


def selected_adapters(config: pytest.Config) -> list[str]:
    names: list[str] = []
    for name in _requested(config):
        if name == "all":
            skipped = passed_over(config)
            names += [n for n in _plugins(config).engine_names() if n not in skipped]
        else:
            names.append(name)
    if not names:
        # A pasted test id (``...::test_x[claude]``) names its adapter: no option needed.
        names += [m.group(1) for a in config.args if (m := _ID_ADAPTER.search(a))]
    return list(dict.fromkeys(names))


def passed_over(config: pytest.Config) -> dict[str, str]:
    """Engines ``all`` leaves out because they need settings this environment lacks (the
    generic acp engine without ``HOLON_ACP_COMMAND``), each with what to set. Named
    explicitly, such an engine is run, and its column says what failed."""
    if _passed_over_key not in config.stash:
        wanted = _requested(config)
        skipped: dict[str, str] = {}
        if "all" in wanted:
            plugins = _plugins(config)
            for name in plugins.engine_names():
                note = plugins.get_engine(name).missing_settings(os.environ)
                if note is not None and name not in wanted:
                    skipped[name] = note
        config.stash[_passed_over_key] = skipped
    return config.stash[_passed_over_key]


_ID_ADAPTER = re.compile(r"run_rfc0002\.py::\w+::test_\w+\[([^\]]+)\]$")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if PARAM not in metafunc.fixturenames:
        return
    fixed = getattr(metafunc.cls, "adapter_name", None)
    names = [fixed] if fixed else selected_adapters(metafunc.config)
    if names:
        metafunc.parametrize(PARAM, names, ids=names, scope="session")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Drop suite tests no adapter was selected for; tag the rest for JUnit."""
    from holon_conformance.suite.registry import load_registry

    registry = load_registry()
    keep, drop = [], []
    for item in items:
        if PARAM in getattr(item, "fixturenames", ()) and PARAM not in _params(item):
            drop.append(item)
            continue
        keep.append(item)
        for mark in item.iter_markers("holon_req"):
            for req_id in mark.args:
                if req_id not in registry.requirements:
                    raise pytest.UsageError(f"{item.nodeid}: unknown requirement id {req_id}")
                item.user_properties.append(("holon_req", req_id))
                item.user_properties.append(("holon_level", registry.get(req_id).level))
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def _params(item: pytest.Item) -> dict[str, Any]:
    callspec = getattr(item, "callspec", None)
    return dict(callspec.params) if callspec is not None else {}


@pytest.fixture(scope="session")
def holon_adapter_name() -> str:
    """Overridden by parametrization (``--holon-adapter`` or a class's ``adapter_name``)."""
    pytest.fail("no adapter selected: pass --holon-adapter NAME or set adapter_name")


@pytest.fixture(scope="session")
def holon_target(
    request: pytest.FixtureRequest, holon_adapter_name: str
) -> Generator[Target, None, None]:
    """The adapter under test (cached per name); untestable adapters FAIL, never skip."""
    from holon_conformance.suite.harness import Target

    config = request.config
    name = holon_adapter_name
    targets = config.stash.setdefault(_targets_key, {})
    if name not in targets:
        try:
            plugins = _plugins(config)
            targets[name] = Target(name, plugins, Path(tempfile.mkdtemp(prefix="holon-conf-")))
        except Exception as exc:  # unknown adapter, plugin error: the adapter is not testable
            pytest.fail(f"adapter {name!r} cannot be loaded: {exc}")
        _describe(config, targets[name])
    target = targets[name]
    target.strict_tmp = not config.getoption("holon_lenient_tmp", False)
    why = target.untestable()
    if why:
        pytest.fail(f"untestable: {why}")
    yield target


def _describe(config: pytest.Config, target: Target) -> None:
    from holon_conformance.suite.report import AdapterInfo

    dist, version = target.distribution
    _collected(config).adapters[target.name] = AdapterInfo(
        name=target.name,
        distribution=dist or target.adapter.distribution,
        version=version,
        engine_version=target.engine_version,
        capabilities=target.adapter.capabilities.as_dict(),
        model_api=target.adapter.model_api,
    )


def pytest_runtest_setup(item: pytest.Item) -> None:
    """N/A when the adapter does not declare the capability a requirement needs."""
    name = _params(item).get(PARAM)
    if name is None:
        return
    for mark in item.iter_markers("holon_cap"):
        try:
            engine = _plugins(item.config).get_engine(name)
        except Exception:
            return  # holon_target reports it as a failure
        capability = str(mark.args[0])
        if capability not in engine.capabilities.as_dict():
            pytest.fail(f"unknown capability {capability!r} required by {item.nodeid}")
        if not getattr(engine.capabilities, capability):
            pytest.skip(f"N/A: adapter {name} does not declare capability {capability}")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    name = _params(item).get(PARAM)
    req_ids = [str(a) for mark in item.iter_markers("holon_req") for a in mark.args]
    if name is None or not req_ids:
        return report
    rows: list[tuple[str, Result]] = []
    if report.when == "call" or (report.when == "setup" and not report.passed):
        rows = _record(item, report, str(name), req_ids)
    if _is_worker(item.config) and report.when != "teardown":
        ship(item, report, str(name), rows, _collected(item.config).adapters.get(str(name)))
    return report


def _record(
    item: pytest.Item, report: pytest.TestReport, name: str, req_ids: list[str]
) -> list[tuple[str, Result]]:
    """The rows this report gives the adapter (also added to the session's collection)."""
    from holon_conformance.suite.registry import THRESHOLDS
    from holon_conformance.suite.report import Result, outcome_for

    data = _collected(item.config)
    if name not in data.adapters:
        from holon_conformance.suite.report import AdapterInfo

        data.adapters[name] = AdapterInfo(name=name)
    message = "" if report.passed else _message(report)
    gating = THRESHOLDS[data.level]
    fails_run = False
    rows = []
    for req_id in req_ids:
        req = data.registry.get(req_id)
        if report.skipped:
            outcome = "N/A"
        else:
            outcome = outcome_for(req, report.passed)
            fails_run |= report.failed and req.level in gating
        rows.append((req_id, Result(outcome, item.nodeid, message)))
        data.add(name, *rows[-1])
    if report.failed and not fails_run:
        item.user_properties.append(("holon_warning", message[:500]))
        levels = {data.registry.get(r).level for r in req_ids}
        if levels <= {"MAY"}:
            report.outcome = "passed"  # a MAY is supported or absent, never a defect
            return rows
        # A SHOULD below the threshold: WARN in the matrix and an xfail plus a warning in
        # pytest's own summary, never a silent pass (``--holon-level should`` fails it).
        report.outcome = "skipped"
        report.wasxfail = f"holon WARN {', '.join(req_ids)}: {message[:300]}"
        warnings.warn_explicit(
            HolonConformanceWarning(f"{item.nodeid}: WARN {', '.join(req_ids)}: {message[:300]}"),
            category=None,
            filename=str(item.path),
            lineno=0,
        )
    return rows


def _message(report: pytest.TestReport) -> str:
    if report.skipped and isinstance(report.longrepr, tuple):
        return str(report.longrepr[2])
    crash = getattr(report.longrepr, "reprcrash", None)
    return str(crash.message) if crash is not None else str(report.longrepr)[-500:]


def _assembled(config: pytest.Config) -> None:
    controller = config.pluginmanager.get_plugin("holon-conformance-controller")
    if isinstance(controller, Controller):
        controller.assemble()


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    if _is_worker(config):
        return  # the controller prints the matrix
    _assembled(config)
    skipped = passed_over(config)
    if not skipped and (
        _collected_key not in config.stash or not config.stash[_collected_key].adapters
    ):
        return
    from holon_conformance.suite.report import failures, render_matrix

    data = _collected(config)
    data.not_configured = skipped
    terminalreporter.section("holon conformance")
    for line in render_matrix(data):
        terminalreporter.write_line(line)
    problems = failures(data)
    if problems:
        terminalreporter.write_line("")
        for line in problems:
            terminalreporter.write_line(line)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    for target in config.stash.get(_targets_key, {}).values():
        shutil.rmtree(target.workdir, ignore_errors=True)
    if _is_worker(config):
        return  # the controller writes the report
    _assembled(config)
    path = config.getoption("holon_report", None)
    if path and _collected_key in config.stash:
        from holon_conformance import __version__
        from holon_conformance.suite.report import write_json

        data = config.stash[_collected_key]
        data.not_configured = passed_over(config)
        write_json(data, Path(path), __version__)
