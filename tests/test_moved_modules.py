"""Old module paths (before issue 23's packages by job) still import, with a DeprecationWarning.

Third parties may say ``from holon_core.adapter import EngineAdapter``; for one release that
keeps working and yields the very same objects as the new path, so a subclass or a
monkeypatch made through either name is the same thing.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from holon_core._moved import MOVED

ROOT = Path(__file__).resolve().parents[1]


def test_every_new_path_exists_and_no_old_file_remains():
    for old, new in MOVED.items():
        assert importlib.util.find_spec(new) is not None, new
        old_file = ROOT / (old.replace(".", "/") + ".py")
        assert not old_file.exists(), f"{old_file} is back: the alias would shadow it"


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_path_is_the_new_module_with_a_warning(old):
    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=f"{old} moved to {MOVED[old]}"):
        module = importlib.import_module(old)
    assert module is importlib.import_module(MOVED[old])


#: A third party's plugin written against the old paths, run in a fresh interpreter.
OLD_STYLE = """
import warnings
warnings.simplefilter("error", DeprecationWarning)
try:
    from holon_core.adapter import EngineAdapter
except DeprecationWarning as warning:
    print("warned:", warning)
warnings.simplefilter("ignore", DeprecationWarning)
from holon_core.adapter import EngineAdapter
from holon_core import EngineAdapter as Public
from holon_core import yaml_safe
print(EngineAdapter is Public, yaml_safe.__name__)
"""


def test_old_imports_in_a_fresh_interpreter(tmp_path):
    done = subprocess.run(
        [sys.executable, "-c", OLD_STYLE], capture_output=True, text=True, cwd=tmp_path, check=False
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("warned: holon_core.adapter moved to holon_core.engine.adapter")
    assert lines[1] == "True holon_core.untrusted.yaml_safe"
