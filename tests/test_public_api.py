"""The public API for adapter authors is ``holon_core`` itself (and ``holon_core.testing``).

The four adapters, the example of docs/writing-an-adapter.md and ``examples/`` import nothing
else from the core, so what a third party may rely on is exactly ``holon_core.__all__`` and
everything else may move. Each name there resolves, lazily: importing ``holon_core`` stays as
cheap as the probe needs (no pydantic, no runtime).
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import holon_core

ROOT = Path(__file__).resolve().parents[1]

#: The code a third party reads as the model of an adapter (tests aside: they may use internals).
ADAPTER_CODE = [
    *sorted(ROOT.glob("adapters/*/holon_adapter_*")),
    ROOT / "docs" / "adapters" / "example",
    ROOT / "examples",
]

#: Core modules an adapter may import from: the package itself and the test kit.
PUBLIC = ("holon_core", "holon_core.testing")


def core_imports(path: Path) -> list[str]:
    """Every ``holon_core...`` module ``path`` imports, at any depth (TYPE_CHECKING included)."""
    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append(node.module)
        elif isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
    return [name for name in found if name == "holon_core" or name.startswith("holon_core.")]


def is_public(module: str) -> bool:
    return module in PUBLIC or module.startswith("holon_core.testing.")


def test_adapters_and_the_docs_example_import_only_the_public_api():
    assert len(ADAPTER_CODE) >= 6, ADAPTER_CODE  # four adapters at least, the example, examples/
    private = []
    for root in ADAPTER_CODE:
        for path in sorted(root.rglob("*.py")):
            if "tests" in path.relative_to(root).parts:
                continue
            for module in core_imports(path):
                in_package = "holon_adapter_" in str(path)
                if not is_public(module) or (in_package and module != "holon_core"):
                    private.append(f"{path.relative_to(ROOT)}: {module}")
    assert private == [], "import these names from holon_core instead:\n" + "\n".join(private)


def test_every_public_name_resolves_and_is_listed():
    assert sorted(set(holon_core.__all__)) == sorted(holon_core.__all__)
    assert set(holon_core.__all__) == {*holon_core._PUBLIC, "__version__"}
    missing = [name for name in holon_core.__all__ if not hasattr(holon_core, name)]
    assert missing == []
    assert set(holon_core.__all__) <= set(dir(holon_core))


def test_an_unknown_name_is_an_attribute_error():
    try:
        holon_core.NoSuchThing  # noqa: B018
    except AttributeError as error:
        assert "NoSuchThing" in str(error)
    else:
        raise AssertionError("holon_core.NoSuchThing resolved")


#: In a fresh interpreter: what importing the package alone loads.
IMPORT_ONLY = "import json, sys, holon_core; print(json.dumps(sorted(sys.modules)))"


def test_importing_holon_core_loads_neither_pydantic_nor_the_runtime():
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_ONLY], capture_output=True, text=True, check=True
    )
    modules = set(json.loads(done.stdout))
    core = sorted(name for name in modules if name.startswith("holon_core."))
    assert core == ["holon_core._moved", "holon_core._version"]
    assert "pydantic" not in modules
    assert "pluggy" not in modules
