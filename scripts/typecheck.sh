#!/usr/bin/env bash
# mypy --strict over every distribution, one run each (the adapters' test dirs would otherwise
# clash as one module name). Test code is checked too, without requiring annotated fixtures.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
mypy() { "$root/.venv/bin/mypy" --config-file "$root/pyproject.toml" "$@"; }
relaxed=(--allow-untyped-defs --allow-incomplete-defs --allow-untyped-calls)
mypy holon_core bench examples docs/adapters/example scripts
mypy "${relaxed[@]}" tests
for pkg in conformance adapters/*/; do
  (
    cd "$pkg"
    mypy holon_*
    if [ -d tests ]; then MYPYPATH=tests mypy "${relaxed[@]}" tests; fi
  )
done
