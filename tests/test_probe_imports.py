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
from pathlib import Path
from typing import Any

from holon_core.hooks.entry_points import entry_points
from holon_core.hooks.manager import BUILTIN_PLUGINS
from holon_core.testing import make_task

#: holon-agent (the probe or a run) in a fresh interpreter; prints its exit code and every module
#: it imported.
PROBE = """
import json, sys
from holon_core.agent.main import main
code = main(sys.argv[1:])
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""

NOT_IMPORTED = ("subprocess", "hashlib", "secrets")


def run_main(argv: list[str], cwd: Path) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    """``PROBE`` with ``argv``: the process and what it printed last (code, modules)."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, check=False, cwd=cwd
    )
    return done, json.loads(done.stdout.splitlines()[-1])


def adapter_modules() -> list[str]:
    """The top modules of the installed adapter plugins (the built-ins aside)."""
    builtin = set(BUILTIN_PLUGINS.values())
    found = {ep.value.partition(":")[0].strip() for ep in entry_points("holon")}
    return sorted(found - builtin)


def test_probe_loads_every_adapter_but_no_parser_subprocess_or_hashlib(tmp_path):
    task = make_task(tmp_path)
    argv = ["--probe", "--engine", "replay", "--input", str(task.input)]
    argv += ["--workspace", str(task.workspace), "--output", str(task.output)]
    done, result = run_main(argv, tmp_path)
    assert done.returncode == 0, done.stderr
    assert result["code"] == 0, done.stderr
    modules = set(result["modules"])
    adapters = adapter_modules()
    assert adapters, "no adapter plugin is installed"
    assert set(adapters) <= modules  # every plugin was loaded
    parsers = sorted(f"{name}.parser" for name in adapters)
    assert [name for name in parsers if name in modules] == []
    assert [name for name in NOT_IMPORTED if name in modules] == []


def test_a_run_without_the_gateway_never_imports_pydantic(tmp_path):
    """A run reads its spec and writes its manifest without pydantic (``models/spec.py``,
    ``record/manifest_json.py``): importing it and building the models was about a third of a
    short run's CPU. The published models stay for the schemas; the gateway's price library
    still brings pydantic along where a run calls a model."""
    steps = [{"write": {"path": "hello.txt", "content": "hi\n"}}, {"say": "done"}]
    task = make_task(tmp_path, replay=steps)
    argv = ["--engine", "replay", "--input", str(task.input), "--workspace", str(task.workspace)]
    argv += ["--output", str(task.output), "--state", str(task.state)]
    done, result = run_main(argv, tmp_path)
    assert result["code"] == 0, done.stderr
    manifest = json.loads((task.output / "manifest.json").read_text())
    assert (manifest["outcome"], manifest["metadata"]["reason"]) == ("success", "ok")
    assert [name for name in result["modules"] if name.split(".")[0] == "pydantic"] == []
