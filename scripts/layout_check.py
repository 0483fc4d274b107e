"""Fails on a module over 400 lines or a function over 60 lines (issue 23), tests aside.

Small modules with one job and functions that fit on a screen are the house style
(AGENTS.md); this keeps them so. A long thing is split along a real seam, never into
arbitrary halves. Run by ``make lint``; ``--list`` prints every offender without failing.

Usage: python scripts/layout_check.py [--list] [PATH ...]
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60
#: Shipped code: the core, the conformance kit and every adapter (their tests are exempt).
DEFAULT_ROOTS = [
    ROOT / "holon_core",
    ROOT / "conformance" / "holon_conformance",
    *sorted(ROOT.glob("adapters/*/holon_adapter_*")),
]


def python_files(roots: list[Path]) -> list[Path]:
    found: list[Path] = []
    for root in roots:
        paths = [root] if root.is_file() else sorted(root.rglob("*.py"))
        found += [p for p in paths if "__pycache__" not in p.parts and "tests" not in p.parts]
    return found


def function_lines(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """From the ``def`` line to the last line of the body (decorators not counted)."""
    return (node.end_lineno or node.lineno) - node.lineno + 1


def offenders(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    found = []
    lines = len(text.splitlines())
    if lines > MAX_MODULE_LINES:
        found.append(f"{shown}: module of {lines} lines (max {MAX_MODULE_LINES})")
    for node in ast.walk(ast.parse(text, filename=str(path))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            length = function_lines(node)
            if length > MAX_FUNCTION_LINES:
                found.append(
                    f"{shown}:{node.lineno}: function {node.name} of {length} lines "
                    f"(max {MAX_FUNCTION_LINES})"
                )
    return found


def main(argv: list[str]) -> int:
    listing = "--list" in argv
    roots = [Path(a).resolve() for a in argv if a != "--list"] or DEFAULT_ROOTS
    found = [line for path in python_files(roots) for line in offenders(path)]
    for line in found:
        print(line)
    if found and not listing:
        print(
            f"{len(found)} over the limits: split along a real seam (scripts/layout_check.py)",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
