"""The traceability gate: every requirement is tested or excluded with a reason, and every
test names only known requirement ids."""

from __future__ import annotations

import inspect

import pytest
from holon_conformance.suite import ConformanceSuite, load_registry
from holon_conformance.suite.registry import parse_registry


def _marked_ids() -> dict[str, list[str]]:
    """Requirement id -> the suite tests that name it (read from the markers)."""
    found: dict[str, list[str]] = {}
    for name, func in inspect.getmembers(ConformanceSuite, inspect.isfunction):
        if not name.startswith("test_"):
            continue
        for mark in getattr(func, "pytestmark", []):
            if mark.name == "holon_req":
                for req_id in mark.args:
                    found.setdefault(req_id, []).append(name)
    return found


def test_every_requirement_has_a_test_or_an_exclusion_reason() -> None:
    registry = load_registry()
    marked = _marked_ids()
    untested = [
        r.id
        for r in registry.requirements.values()
        if r.id not in marked and r.id not in registry.excluded
    ]
    assert not untested, f"requirements with no test and no exclusion: {untested}"
    assert all(reason.strip() for reason in registry.excluded.values())


def test_no_test_names_an_unknown_or_excluded_id() -> None:
    registry = load_registry()
    marked = _marked_ids()
    unknown = sorted(set(marked) - set(registry.requirements))
    assert not unknown, f"tests name unknown requirement ids: {unknown}"
    both = sorted(set(marked) & set(registry.excluded))
    assert not both, f"excluded requirements that do have tests: {both}"


def test_registry_keeps_the_rfc_levels_and_v01_sentences() -> None:
    registry = load_registry()
    assert (registry.rfc, registry.version) == ("RFC-0002", "0.2")
    assert registry.get("RFC2-OUT-004").level == "MUST"
    assert registry.get("RFC2-HEAD-001").level == "MUST NOT"
    assert registry.get("RFC2-PATCH-002").level == "SHOULD"
    assert registry.get("RFC2-HEAD-003").capability == "needs_credentials"
    assert {r.id for r in registry.requirements.values() if r.introduced_in == "0.1"} == {
        "RFC2-V01-ART-001",
        "RFC2-V01-PATCH-001",
        "RFC2-V01-HOST-001",
    }


def test_registry_rejects_duplicates_and_unknown_exclusions() -> None:
    entry = "  - {id: X-1, level: MUST, section: s, text: t}\n"
    with pytest.raises(ValueError, match="duplicate"):
        parse_registry(f"rfc: R\nversion: '1'\nrequirements:\n{entry}{entry}")
    with pytest.raises(ValueError, match="not in the registry"):
        parse_registry(f"rfc: R\nversion: '1'\nrequirements:\n{entry}excluded: {{X-2: why}}\n")
