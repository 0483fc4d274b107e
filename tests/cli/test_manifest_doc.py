"""docs/manifest.md describes every manifest field and every reason code holon has.

Fields come from the contract model and from real manifests written by holon-agent (success,
failure, needs_human, probe), so a key added in code without a line in the doc fails here.
Reason codes come from the model's list, the error classes, the runner's problem codes and
the places in holon's source and the adapters' that set a reason.
"""

from __future__ import annotations

import re
import typing
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

import holon_core.agent.preflight
import holon_core.runner.run
from holon_core.errors import HolonError
from holon_core.models.manifest import REASON_CODES, Manifest
from holon_core.runner.validate import PROBLEM_CODES
from holon_core.testing import make_task, run_agent

REPO = Path(__file__).resolve().parents[2]
DOC = (REPO / "docs" / "manifest.md").read_text(encoding="utf-8")
DOCUMENTED = set(re.findall(r"`([^`]+)`", DOC))
#: Adapter sections: their keys are documented in each adapter's README (and named here).
ADAPTER_SECTIONS = ("metadata.claude.", "metadata.codex.", "metadata.gemini.")
#: Where holon's code sets a reason code.
SETTERS = [
    re.compile(r'\breason\s*=\s*"([a-z_]+)"'),
    re.compile(r'\breason:\s*str\s*=\s*"([a-z_]+)"'),
    re.compile(r'\b_fail\(\s*"([a-z_]+)"'),
    re.compile(r'Decision\(\s*"[a-z_]+",\s*"([a-z_]+)"'),
    re.compile(r'"failure",\s*"([a-z_]+)",\s*1\b'),
]


def model_fields(model: type[BaseModel], prefix: str = "") -> set[str]:
    found = set()
    for name, info in model.model_fields.items():
        path = f"{prefix}{name}"
        found.add(path)
        for inner in _models_in(info.annotation):
            is_list = "list[" in str(info.annotation)
            found |= model_fields(inner, path + ("[]." if is_list else "."))
    return found


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    todo, models = [annotation], []
    while todo:
        item = todo.pop()
        if isinstance(item, type) and issubclass(item, BaseModel):
            models.append(item)
        todo += list(typing.get_args(item))
    return models


def keys(data: Any, prefix: str = "") -> set[str]:
    found: set[str] = set()
    if isinstance(data, dict):
        for key, value in data.items():
            found.add(prefix + key)
            found |= keys(value, prefix + key + ".")
    elif isinstance(data, list):
        for value in data:
            found |= keys(value, prefix.removesuffix(".") + "[].")
    return found


def undocumented(paths: set[str]) -> list[str]:
    return sorted(p for p in paths if p not in DOCUMENTED and not p.startswith(ADAPTER_SECTIONS))


def test_every_model_field_is_documented() -> None:
    fields = model_fields(Manifest)
    assert "metadata.tools.failed_commands[].exit_code" in fields  # the walk reaches the leaves
    assert undocumented(fields) == []


@pytest.fixture(scope="module")
def real_manifests(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    root = tmp_path_factory.mktemp("manifests")
    secret = {"GITHUB_TOKEN": "ghp_abcdefghijklmnopqrstuvwxyz012345"}
    runs: list[tuple[list[Any], dict[str, str], list[str]]] = [
        ([{"write": {"path": "a.txt", "content": "a\n"}}, {"run": "false"}, {"say": "done"}],
         {}, []),
        ([{"outcome": "failure"}], {}, []),
        ([{"run": "echo $GITHUB_TOKEN > leak.txt"}, {"say": "done"}],
         {**secret, "HOLON_REPLAY_PASS_ENV": "GITHUB_TOKEN"}, []),
        ([], {}, ["--probe"]),
    ]  # fmt: skip
    manifests = []
    for index, (steps, env, args) in enumerate(runs):
        result = run_agent(make_task(root / str(index), replay=steps), env=env, args=args)
        assert result.manifest is not None, result.stderr
        manifests.append(result.manifest)
    assert {m["outcome"] for m in manifests} == {"success", "failure", "needs_human"}
    return manifests


def test_every_field_holon_agent_writes_is_documented(real_manifests: list[dict[str, Any]]) -> None:
    written = set().union(*(keys(m) for m in real_manifests))
    assert {"metadata.detail", "metadata.process.ended_by", "error"} <= written
    assert undocumented(written) == []


def _error_classes(cls: type[HolonError]) -> list[type[HolonError]]:
    return [cls, *(c for sub in cls.__subclasses__() for c in _error_classes(sub))]


def reason_codes() -> set[str]:
    codes = set(REASON_CODES) | set(PROBLEM_CODES)
    codes |= {cls.reason for cls in _error_classes(HolonError)}
    sources = [*(REPO / "holon_core").rglob("*.py"), *(REPO / "adapters").glob("*/holon_*/*.py")]
    for source in sources:
        text = source.read_text(encoding="utf-8")
        for pattern in SETTERS:
            codes |= set(pattern.findall(text))
    return codes - {"success", "failure"}  # outcomes caught by ``outcome, reason = ...``


def test_every_reason_code_is_documented() -> None:
    codes = reason_codes()
    assert {"invalid_skill", "preflight_failed", "runner_error", "patch_does_not_apply"} <= codes
    documented_codes = set(re.findall(r"^\| `([a-z_]+)` \|", DOC, flags=re.MULTILINE))
    assert sorted(codes - documented_codes) == []


def test_the_doc_check_can_fail() -> None:
    assert undocumented({"metadata.no_such_field", "metadata.claude.anything"}) == [
        "metadata.no_such_field"
    ]
    assert holon_core.agent.preflight.PreflightFailed.reason == "preflight_failed"
