"""What ``holon-agent --probe`` does not import.

The probe's CPU budget (5x ``python -c pass``, ``bench/probe_cpu.py``) is mostly imports, so
each module below is imported where it is used, never by a probe that does not need it: an
adapter's event parser by the run that parses events, ``subprocess`` by an engine's
``--version`` (an npm engine's version is read from its ``package.json``), ``hashlib`` by a
skill's digest, ``secrets`` (which loads OpenSSL through ``hmac``) nowhere. Every adapter
plugin is still loaded: the probe makes the run's plugin checks.
"""

from __future__ import annotations

import json
import subprocess
import sys

from holon_core.hooks.entry_points import entry_points
from holon_core.hooks.manager import BUILTIN_PLUGINS
from holon_core.testing import make_task

#: The probe in a fresh interpreter; prints its exit code and every module it imported.
PROBE = """
import json, sys
from holon_core.agent.main import main
code = main(sys.argv[1:])
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""

NOT_IMPORTED = ("subprocess", "hashlib", "secrets")


def adapter_modules() -> list[str]:
    """The top modules of the installed adapter plugins (the built-ins aside)."""
    builtin = set(BUILTIN_PLUGINS.values())
    found = {ep.value.partition(":")[0].strip() for ep in entry_points("holon")}
    return sorted(found - builtin)


def test_probe_loads_every_adapter_but_no_parser_subprocess_or_hashlib(tmp_path):
    task = make_task(tmp_path)
    argv = ["--probe", "--engine", "replay", "--input", str(task.input)]
    argv += ["--workspace", str(task.workspace), "--output", str(task.output)]
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *argv],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["code"] == 0, done.stderr
    modules = set(result["modules"])
    adapters = adapter_modules()
    assert adapters, "no adapter plugin is installed"
    assert set(adapters) <= modules  # every plugin was loaded
    parsers = sorted(f"{name}.parser" for name in adapters)
    assert [name for name in parsers if name in modules] == []
    assert [name for name in NOT_IMPORTED if name in modules] == []
