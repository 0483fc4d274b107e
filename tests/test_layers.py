"""The imports of ``holon_core`` flow one way, and neither package imports in a circle.

The graph is built from the source (AST), so it sees every import a run may execute: imports
inside functions count, because a lazy import is still a dependency. Imports under
``if TYPE_CHECKING:`` are exempt: they never run, and annotations may name a higher layer's
types (the engine's ``RunContext`` in the process supervisor, say) without depending on it.

``LAYERS`` is the map of AGENTS.md ("why this cut") as data: a module may import its own
layer and the layers below it, never one above. A new top-level package or module of
``holon_core`` must be placed in it.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: Bottom to top: (name, top-level packages/modules of holon_core in it).
LAYERS: list[tuple[str, set[str]]] = [
    ("foundation", {"_version", "_moved", "errors", "untrusted"}),
    ("skills", {"skill"}),
    ("contract", {"spec", "models"}),
    ("mechanisms", {"engine", "process", "workspace", "sandbox"}),
    ("record and plugins", {"record", "hooks", "builtin"}),
    ("model traffic and trails", {"gateway", "cassette", "trajectory", "telemetry"}),
    ("one-shot pipeline", {"agent"}),
    ("serve mode", {"serve"}),
    ("host side", {"runner", "batch", "report", "solve", "action"}),
    ("entry points", {"cli", "testing", "__main__"}),
]

#: Modules whose layer is not their package's, and why.
MODULE_LAYER = {
    # argparse with usage errors exiting 1: every command's base, imports nothing of holon.
    "holon_core.cli.parser": "foundation",
    # ``holon cassette check`` replays a cassette through ``holon run``: a host-side command.
    "holon_core.cassette.check": "host side",
    # holon-agent's entry: dispatches to the pipeline, the probe and serve mode.
    "holon_core.agent.main": "entry points",
    "holon_core.agent.__main__": "entry points",
}

LAYER_INDEX = {name: i for i, (name, _) in enumerate(LAYERS)}


def module_name(path: Path, base: Path) -> str:
    parts = list(path.relative_to(base).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def package_modules(package_dir: Path) -> dict[str, Path]:
    base = package_dir.parent
    return {
        module_name(path, base): path
        for path in sorted(package_dir.rglob("*.py"))
        if "__pycache__" not in path.parts
    }


def runtime_nodes(tree: ast.Module) -> list[ast.AST]:
    """Every node outside an ``if TYPE_CHECKING:`` block."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                skipped.update(id(inner) for inner in ast.walk(child))
    return [node for node in ast.walk(tree) if id(node) not in skipped]


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The package's own modules ``name`` imports at run time (packages' ``__init__`` too)."""
    root = name.split(".", maxsplit=1)[0]
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in runtime_nodes(ast.parse(path.read_text(encoding="utf-8"))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                here = name.split(".") if is_package else name.split(".")[:-1]
                here = here[: len(here) - node.level + 1]
                base = ".".join([*here, base] if base else here)
            targets = [base, *(f"{base}.{alias.name}" for alias in node.names)]
        for target in targets:
            parts = target.split(".")
            # importing a.b.c runs a.b's __init__ too; the root package's never counts
            for i in range(2, len(parts) + 1):
                prefix = ".".join(parts[:i])
                # a package's __init__ has run before any module inside it
                ancestor = name.startswith(prefix + ".")
                if prefix in modules and prefix != name and not ancestor:
                    found.add(prefix)
    return {target for target in found if target.split(".")[0] == root and target != root}


def import_graph(package_dir: Path) -> dict[str, set[str]]:
    """Module -> the modules it imports; a package whose ``__init__`` imports nothing is left
    out as a target (running it cannot close a circle or pull in a layer)."""
    modules = package_modules(package_dir)
    graph = {name: imports_of(name, path, modules) for name, path in modules.items()}
    inert = {
        name for name, path in modules.items() if path.name == "__init__.py" and not graph[name]
    }
    return {name: targets - inert for name, targets in graph.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def layer_of(module: str) -> str | None:
    if module in MODULE_LAYER:
        return MODULE_LAYER[module]
    if module == "holon_core":
        return "foundation"
    top = module.split(".")[1]
    return next((name for name, members in LAYERS if top in members), None)


def test_holon_core_imports_in_no_circle():
    assert circles(import_graph(ROOT / "holon_core")) == []


def test_holon_conformance_imports_in_no_circle():
    assert circles(import_graph(ROOT / "conformance" / "holon_conformance")) == []


def test_every_holon_core_module_has_a_layer():
    unplaced = sorted(m for m in import_graph(ROOT / "holon_core") if layer_of(m) is None)
    assert unplaced == [], "place these in LAYERS of tests/test_layers.py and in AGENTS.md"


def test_no_module_imports_a_higher_layer():
    upward = []
    for module, targets in sorted(import_graph(ROOT / "holon_core").items()):
        mine = LAYER_INDEX[layer_of(module) or "entry points"]
        for target in sorted(targets):
            theirs = LAYER_INDEX[layer_of(target) or "entry points"]
            if theirs > mine:
                upward.append(f"{module} ({LAYERS[mine][0]}) -> {target} ({LAYERS[theirs][0]})")
    assert upward == []


def test_the_checker_sees_a_circle_and_a_lazy_import(tmp_path):
    """The graph builder itself: a circle closed by an import inside a function is found."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from pkg.b import thing\n")
    (package / "b.py").write_text("def thing():\n    from pkg import a\n")
    (package / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import a\n"
    )
    graph = import_graph(package)
    assert graph["pkg.c"] == set()
    assert circles(graph) == [["pkg.a", "pkg.b"]]


def test_the_layers_name_each_package_once():
    seen: defaultdict[str, int] = defaultdict(int)
    for _, members in LAYERS:
        for member in members:
            seen[member] += 1
    assert [name for name, count in seen.items() if count > 1] == []


def test_every_module_says_its_job_in_a_docstring():
    """``scripts/map.py`` (the module map AGENTS.md points to) prints each module's first
    docstring paragraph: a module without one is a hole in the map."""
    silent = [
        str(path.relative_to(ROOT))
        for path in sorted((ROOT / "holon_core").rglob("*.py"))
        if "__pycache__" not in path.parts
        and not (ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or "").strip()
    ]
    assert silent == [], "give these a docstring saying their job"
