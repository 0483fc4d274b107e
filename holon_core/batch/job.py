"""The job file of ``holon batch``: tasks, a matrix and limits, validated before anything runs.

A job file is YAML read through :mod:`holon_core.untrusted.yaml_safe` and checked with pydantic; an
error names the file, the field (``tasks[2].workspace``) and what to write instead. Paths in
the file are relative to the file's own directory, so a job can be run from anywhere.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from holon_core.errors import InputError, SpecError
from holon_core.spec.durations import parse_duration
from holon_core.spec.file import read_spec_text
from holon_core.untrusted import yaml_safe

_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(B|KiB|MiB|GiB|TiB)?\s*$")
#: No model named: each engine uses its own default.
_ENGINE_DEFAULT: list[str | None] = [None]
_UNITS = {None: 1, "B": 1, "KiB": 1024, "MiB": 1024**2, "GiB": 1024**3, "TiB": 1024**4}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class GitSource(_Strict):
    """A workspace cloned from a git URL at a ref, into the job's results dir."""

    git: str = Field(min_length=1, description="URL or path git can clone")
    ref: str = Field("HEAD", min_length=1, description="branch, tag or commit")


class TaskEntry(_Strict):
    id: str = Field(description="unique task id: letters, digits, '.', '_', '-'")
    spec: str | dict[str, Any] = Field(description="path of a spec.yaml, or the spec inline")
    workspace: str | GitSource = Field(description="a directory, or {git: URL, ref: REF}")
    context: str | None = Field(None, description="context dir (default: context/ by the spec)")

    @field_validator("id")
    @classmethod
    def _id(cls, value: str) -> str:
        if not _ID.match(value):
            raise ValueError(
                "use 1-64 letters, digits, '.', '_' or '-', starting with one of the first two"
            )
        return value


class Matrix(_Strict):
    engines: list[str] = Field(min_length=1, description="engine names, e.g. [replay, claude]")
    models: list[str | None] = Field(default_factory=_ENGINE_DEFAULT.copy, min_length=1)
    attempts: int = Field(1, ge=1, le=1000, description="independent runs per task/engine/model")

    @field_validator("engines")
    @classmethod
    def _engines(cls, value: list[str]) -> list[str]:
        for name in value:
            if not _ID.match(name):
                raise ValueError(f"{name!r} is not an engine name")
        if len(set(value)) != len(value):
            raise ValueError("an engine is listed twice")
        return value


class Limits(_Strict):
    timeout: float | None = Field(None, description="wall clock per run, e.g. 10m")
    concurrency: int = Field(4, ge=1, le=1024, description="runs at once (--concurrency)")
    per_engine: dict[str, int] = Field(default_factory=dict, description="runs at once per engine")
    retries: int = Field(2, ge=0, le=20, description="extra tries for infrastructure failures")
    backoff: float = Field(5.0, ge=0, description="first wait before a retry; doubles each time")
    max_cost_usd: float | None = Field(
        None,
        gt=0,
        allow_inf_nan=False,
        strict=True,  # a number, as the spec's constraints.budget.max_cost_usd
        description="start no new cell once the job's cells cost this much (USD)",
    )

    @field_validator("timeout", "backoff", mode="before")
    @classmethod
    def _duration(cls, value: Any) -> Any:
        if isinstance(value, str):
            return parse_duration(value)
        return value

    @field_validator("per_engine")
    @classmethod
    def _per_engine(cls, value: dict[str, int]) -> dict[str, int]:
        for name, limit in value.items():
            if limit < 1:
                raise ValueError(f"{name}: the limit must be at least 1")
        return value


class RayOptions(_Strict):
    """What each Ray task declares, and how files travel."""

    num_cpus: float = Field(1.0, gt=0)
    memory: int | None = Field(None, description="bytes per run, or like 2GiB")
    max_retries: int = Field(3, ge=0, le=100, description="Ray's retries of a run on a lost worker")
    shared_paths: bool = Field(
        False, description="workers see the job's paths (a shared filesystem): no archives"
    )
    lost_after: float = Field(
        30.0,
        ge=5,
        le=3600,
        description="seconds the cluster's GCS may leave every probe unanswered before the "
        "cluster counts as lost and the unfinished cells end as lost_worker",
    )

    @field_validator("memory", mode="before")
    @classmethod
    def _memory(cls, value: Any) -> Any:
        if isinstance(value, str):
            match = _SIZE.match(value)
            if not match:
                raise ValueError(f"{value!r} is not a size; write it like 2GiB or 512MiB")
            return int(float(match.group(1)) * _UNITS[match.group(2)])
        return value


class JobFile(_Strict):
    name: str | None = Field(None, description="job name (default: the file's stem)")
    results: str | None = Field(None, description="results dir (default: <stem>.results/)")
    tasks: list[TaskEntry] = Field(min_length=1)
    matrix: Matrix
    limits: Limits = Field(default_factory=Limits)
    ray: RayOptions = Field(default_factory=RayOptions)

    @model_validator(mode="after")
    def _unique(self) -> JobFile:
        seen: set[str] = set()
        for task in self.tasks:
            if task.id in seen:
                raise ValueError(f"task id {task.id!r} is used twice")
            seen.add(task.id)
        unknown = set(self.limits.per_engine) - set(self.matrix.engines)
        if unknown:
            raise ValueError(f"limits.per_engine names {sorted(unknown)}, not in matrix.engines")
        return self


class Job:
    """A validated job file and the directory its relative paths start from."""

    def __init__(self, path: Path, data: JobFile) -> None:
        self.path, self.data = path, data
        self.base = path.parent
        self.name = data.name or path.stem
        self.results = (
            self.resolve(data.results) if data.results else self.base / f"{path.stem}.results"
        )

    def resolve(self, text: str) -> Path:
        return (self.base / Path(text).expanduser()).absolute()


def load_job(path: Path) -> Job:
    """Read and validate a job file; bad input raises :class:`InputError` naming the field."""
    path = path.expanduser().absolute()
    try:
        text = read_spec_text(path)  # the same caps and checks as a spec file
    except SpecError as exc:
        raise InputError(f"job file {exc.message}", hint="pass the path of a job YAML") from None
    try:
        raw = yaml_safe.load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        problem = getattr(exc, "problem", None) or str(exc)
        raise InputError(f"{where}: invalid YAML: {problem}", hint="fix the YAML syntax") from None
    if not isinstance(raw, dict):
        raise InputError(f"{path}: a job file is a YAML mapping", hint="see docs/batch.md")
    try:
        data = JobFile.model_validate(raw)
    except ValidationError as exc:
        raise InputError(
            f"{path}: {_describe(exc)}", hint="see docs/batch.md for the fields"
        ) from None
    return Job(path, data)


def _describe(exc: ValidationError) -> str:
    problems = []
    for error in exc.errors()[:5]:
        loc = [part for part in error["loc"] if not _is_union_tag(part)]
        where = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in loc)
        where = where.lstrip(".")
        message = str(error["msg"]).removeprefix("Value error, ")
        if error["type"] == "extra_forbidden":
            message = "unknown field"
        problems.append(f"{where or 'job'}: {message}")
    more = len(exc.errors()) - len(problems)
    return "; ".join(problems) + (f"; and {more} more" if more > 0 else "")


def _is_union_tag(part: int | str) -> bool:
    """pydantic names the union member it tried (``str``, ``GitSource``): not a field."""
    return isinstance(part, str) and (part in ("str", "GitSource") or part.startswith("dict["))
