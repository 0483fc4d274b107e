"""Outcomes per (adapter, requirement): the terminal matrix, the verdict and the JSON report.

One requirement resolves to one outcome per adapter, most severe first: FAIL (a MUST broken,
or untestable), WARN (a SHOULD broken), PASS; MAY rows read ``supported``/``absent``; N/A when
the adapter does not declare the capability the requirement needs. CONFORMANT means no MUST
row is FAIL and every MUST row ran (else INCOMPLETE); an unrun row never counts as a pass.
"""

from __future__ import annotations

import json
import platform
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from holon_conformance.suite.registry import Registry, Requirement

SCHEMA_VERSION = "1"
SEVERITY = ("FAIL", "WARN", "absent", "PASS", "supported", "N/A")


@dataclass
class Result:
    outcome: str
    test_id: str
    message: str = ""


@dataclass
class AdapterInfo:
    name: str
    distribution: str | None = None
    version: str | None = None
    engine_version: str | None = None
    capabilities: dict[str, bool] = field(default_factory=dict)
    model_api: str | None = None


def outcome_for(req: Requirement, passed: bool) -> str:
    if req.level == "MAY":
        return "supported" if passed else "absent"
    if passed:
        return "PASS"
    return "FAIL" if req.binding else "WARN"


def resolve(results: list[Result]) -> str:
    if not results:
        return "not run"
    return min((r.outcome for r in results), key=SEVERITY.index)


@dataclass
class Collected:
    """Everything the plugin gathered during the session."""

    registry: Registry
    level: str
    adapters: dict[str, AdapterInfo] = field(default_factory=dict)
    results: dict[str, dict[str, list[Result]]] = field(default_factory=dict)
    #: Engines ``--holon-adapter all`` passed over: name -> the settings they need.
    not_configured: dict[str, str] = field(default_factory=dict)

    def add(self, adapter: str, req_id: str, result: Result) -> None:
        self.results.setdefault(adapter, {}).setdefault(req_id, []).append(result)

    def row(self, adapter: str, req_id: str) -> str:
        return resolve(self.results.get(adapter, {}).get(req_id, []))

    def verdict(self, adapter: str) -> str:
        rows = [self.row(adapter, r.id) for r in self.registry.tested() if r.binding]
        if all(row == "not run" for row in rows):
            return "NOT RUN"
        if "FAIL" in rows:
            return "NOT CONFORMANT"
        # A MUST row that never ran is not a pass: a partial run certifies nothing.
        return "INCOMPLETE" if "not run" in rows else "CONFORMANT"

    def counts(self, adapter: str) -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = {}
        for req in self.registry.tested():
            group = "MUST" if req.binding else ("MAY" if req.level == "MAY" else "SHOULD")
            row = self.row(adapter, req.id)
            bucket = out.setdefault(group, {"total": 0, "met": 0, "na": 0, "not_run": 0})
            bucket["total"] += 1
            bucket["met"] += row in ("PASS", "supported")
            bucket["na"] += row == "N/A"
            bucket["not_run"] += row == "not run"
        return out


def render_matrix(data: Collected) -> list[str]:
    names = list(data.adapters)
    notes = [f"{n}: NOT CONFIGURED (not run): {why}" for n, why in data.not_configured.items()]
    if not names:
        return notes
    width = max(18, *(len(n) + 2 for n in names))
    reg = data.registry
    lines = [f"holon conformance  {reg.rfc} v{reg.version}  (level={data.level})"]
    lines.append(f"{'requirement':20}{'level':12}" + "".join(f"{n:{width}}" for n in names))
    for req in reg.tested():
        row = "".join(f"{data.row(n, req.id):{width}}" for n in names)
        lines.append(f"{req.id:20}{req.level:12}{row}")
    lines.append("-" * (32 + width * len(names)))
    for group in ("MUST", "SHOULD", "MAY"):
        cells = []
        for name in names:
            c = data.counts(name).get(group, {"total": 0, "met": 0, "na": 0, "not_run": 0})
            cell = f"{c['met']}/{c['total'] - c['na'] - c['not_run']}"
            if c["na"]:
                cell += f" ({c['na']} N/A)"
            if c["not_run"]:
                cell += f" ({c['not_run']} not run)"
            cells.append(f"{cell:{width}}")
        lines.append(f"{group:32}" + "".join(cells))
    lines.append(f"{'verdict':32}" + "".join(f"{data.verdict(n):{width}}" for n in names))
    return lines + notes


def failures(data: Collected) -> list[str]:
    """One line per failing or warning row, ending with the sentence it breaks."""
    lines = []
    for name in data.adapters:
        for req_id, results in data.results.get(name, {}).items():
            req = data.registry.get(req_id)
            for result in results:
                if result.outcome in ("FAIL", "WARN"):
                    first = result.message.strip().splitlines()[0] if result.message else ""
                    lines.append(
                        f"{name} {result.outcome} {req_id}: {first[:160]} "
                        f"(refer to {req.anchor}: {req.text[:100]})"
                    )
    return lines


def to_json(data: Collected, suite_version: str) -> dict[str, Any]:
    reg = data.registry
    adapters = []
    for name, info in data.adapters.items():
        rows = []
        for req in reg.tested():
            results = data.results.get(name, {}).get(req.id, [])
            rows.append(
                {
                    "id": req.id,
                    "level": req.level,
                    "outcome": data.row(name, req.id),
                    "test_ids": [r.test_id for r in results],
                    "message": "\n".join(r.message for r in results if r.message)[:2000],
                    "anchor": req.anchor,
                }
            )
        adapters.append(
            {
                "name": name,
                "dist": info.distribution,
                "version": info.version,
                "engine_version": info.engine_version,
                "model_api": info.model_api,
                "capabilities": info.capabilities,
                "verdict": data.verdict(name),
                "counts": data.counts(name),
                "results": rows,
            }
        )
    for name, why in data.not_configured.items():
        adapters.append({"name": name, "verdict": "NOT CONFIGURED", "note": why, "results": []})
    return {
        "schema_version": SCHEMA_VERSION,
        "suite": "holon-conformance",
        "suite_version": suite_version,
        "rfc": reg.rfc,
        "rfc_version": reg.version,
        "requirements_digest": reg.digest,
        "level": data.level,
        "platform": platform.platform(),
        "python": sys.version.split()[0],
        "excluded": reg.excluded,
        "adapters": adapters,
    }


def write_json(data: Collected, path: Path, suite_version: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(to_json(data, suite_version), indent=2) + "\n", encoding="utf-8")
