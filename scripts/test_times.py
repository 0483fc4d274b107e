"""Where the suite's time goes: a JUnit XML report's test times summed by area.

    uv run --frozen --no-sync pytest -n auto --maxprocesses 4 --dist loadfile \\
        --junitxml=out/junit.xml
    uv run --frozen --no-sync python scripts/test_times.py out/junit.xml [--files 30]

An area is the top of a test's path (``tests/gateway``, ``adapters/claude``, ``conformance``);
the sum is of each test's own time (setup, call and teardown), so on two workers the wall time
is about half of it. Issue 32's closing notes give these figures before and after a change.
"""

from __future__ import annotations

import argparse
import collections
import xml.etree.ElementTree as ET
from pathlib import Path


def area(module: str) -> str:
    """``tests.gateway.test_x`` -> ``tests/gateway``; ``tests.test_x`` -> ``tests``."""
    parts = module.split(".")
    if parts[0] in ("tests", "adapters") and len(parts) > 2:
        return "/".join(parts[:2])
    return parts[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", nargs="+", type=Path, help="JUnit XML files")
    parser.add_argument("--files", type=int, default=30, help="the slowest N test files")
    args = parser.parse_args()
    by_area: dict[str, float] = collections.defaultdict(float)
    count: collections.Counter[str] = collections.Counter()
    by_file: dict[str, float] = collections.defaultdict(float)
    for report in args.reports:
        for case in ET.parse(report).iter("testcase"):
            module = case.get("classname", "")
            seconds = float(case.get("time", "0"))
            by_area[area(module)] += seconds
            count[area(module)] += 1
            by_file[module] += seconds
    print(f"{sum(by_area.values()):.0f} s in {sum(count.values())} tests")
    for name, seconds in sorted(by_area.items(), key=lambda item: -item[1]):
        print(f"  {name:24} {seconds:7.0f} s  {count[name]:5d} tests")
    print(f"the slowest {args.files} files:")
    for name, seconds in sorted(by_file.items(), key=lambda item: -item[1])[: args.files]:
        print(f"  {seconds:7.0f} s  {name}")


if __name__ == "__main__":
    main()
