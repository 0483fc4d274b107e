"""The module map AGENTS.md points to: each package's job, then each module's, one line each.

    uv run --frozen --no-sync python scripts/map.py              # every package of holon_core
    uv run --frozen --no-sync python scripts/map.py gateway agent
    uv run --frozen --no-sync python scripts/map.py adapters/acp/holon_adapter_acp

The lines are the docstrings' first paragraphs, so the map is as true as the code: a module
is described where it is written, once (``tests/test_layers.py`` fails on a module without
one).
"""

from __future__ import annotations

import argparse
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / "holon_core"


def first_line(path: Path) -> str:
    """The first paragraph of a module's docstring on one line ('' when it has none)."""
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    return " ".join(doc.strip().split("\n\n")[0].split())


def package_map(package: Path) -> list[str]:
    """``package/: its job``, then ``  module.py  its job`` for each module, by name."""
    lines = [f"{package.relative_to(ROOT)}/  {first_line(package / '__init__.py')}"]
    modules = sorted(p for p in package.glob("*.py") if p.name != "__init__.py")
    width = max((len(p.name) for p in modules), default=0)
    lines += [f"  {p.name:{width}}  {first_line(p)}" for p in modules]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("packages", nargs="*", help="packages of holon_core, or paths")
    args = parser.parse_args()
    chosen = [CORE / name if (CORE / name).is_dir() else ROOT / name for name in args.packages]
    if not chosen:
        chosen = sorted(p.parent for p in CORE.glob("*/__init__.py"))
    for index, package in enumerate(chosen):
        if not (package / "__init__.py").is_file():
            raise SystemExit(f"map.py: {package} is not a package (no __init__.py)")
        print(("\n" if index else "") + "\n".join(package_map(package)))


if __name__ == "__main__":
    main()
