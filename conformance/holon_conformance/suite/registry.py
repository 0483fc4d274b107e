"""The requirement registry: RFC-0002's normative sentences as data, loaded once.

Tests name requirements by id (``@pytest.mark.holon_req("RFC2-OUT-004")``); the level lives
only here, so a test never restates MUST or SHOULD and the matrix can be computed from data.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any, Literal

import yaml

Level = Literal["MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "MAY"]
LEVELS: tuple[Level, ...] = ("MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "MAY")
#: ``--holon-level`` thresholds: which levels turn a failed check into a failed test.
THRESHOLDS: dict[str, frozenset[str]] = {
    "must": frozenset({"MUST", "MUST NOT"}),
    "should": frozenset({"MUST", "MUST NOT", "SHOULD", "SHOULD NOT"}),
}
REGISTRY_FILE = "rfc-0002.yaml"


@dataclass(frozen=True, slots=True)
class Requirement:
    id: str
    level: Level
    text: str
    section: str
    source: str = "RFC-0002"
    introduced_in: str = "0.2"
    capability: str | None = None

    @property
    def binding(self) -> bool:
        """A MUST or MUST NOT: one failure makes the adapter NOT CONFORMANT."""
        return self.level in ("MUST", "MUST NOT")

    @property
    def anchor(self) -> str:
        return f"{self.source} v{self.introduced_in} section {self.section}"


@dataclass(frozen=True, slots=True)
class Registry:
    rfc: str
    version: str
    requirements: dict[str, Requirement]
    excluded: dict[str, str]
    digest: str

    def get(self, req_id: str) -> Requirement:
        return self.requirements[req_id]

    def tested(self) -> list[Requirement]:
        return [r for r in self.requirements.values() if r.id not in self.excluded]


def parse_registry(text: str) -> Registry:
    data: dict[str, Any] = yaml.safe_load(text)
    reqs: dict[str, Requirement] = {}
    for raw in data["requirements"]:
        if raw["level"] not in LEVELS:
            raise ValueError(f"{raw['id']}: unknown level {raw['level']!r}")
        if raw["id"] in reqs:
            raise ValueError(f"{raw['id']}: duplicate requirement id")
        reqs[raw["id"]] = Requirement(
            id=raw["id"],
            level=raw["level"],
            text=" ".join(str(raw["text"]).split()),
            section=str(raw["section"]),
            source=str(raw.get("source", data["rfc"])),
            introduced_in=str(raw.get("introduced_in", data["version"])),
            capability=raw.get("capability"),
        )
    excluded = {str(k): str(v) for k, v in (data.get("excluded") or {}).items()}
    unknown = sorted(set(excluded) - set(reqs))
    if unknown:
        raise ValueError(f"excluded ids not in the registry: {', '.join(unknown)}")
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    return Registry(str(data["rfc"]), str(data["version"]), reqs, excluded, digest)


@lru_cache(maxsize=1)
def load_registry() -> Registry:
    text = (resources.files("holon_conformance.suite") / REGISTRY_FILE).read_text("utf-8")
    return parse_registry(text)
