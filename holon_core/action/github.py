"""The files a GitHub Actions runner gives a step: ``$GITHUB_OUTPUT`` and
``$GITHUB_STEP_SUMMARY``.

Outputs are written in the runner's multi-line form (``name<<DELIMITER``, the value, the
delimiter) with a random delimiter, as GitHub's own toolkit does, so no value (a reason, a
path, an engine's text) can end its entry early and set another output.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from pathlib import Path


class StepFileError(Exception):
    """A step file is not there (not a GitHub Actions job step) or cannot be appended to."""


def step_file(env: Mapping[str, str], name: str) -> Path:
    """The step file ``$name`` names, checked before the run so that a run is not made
    whose outputs could not be written."""
    value = env.get(name)
    if not value:
        raise StepFileError(
            f"{name} is not set: this command writes a GitHub Actions step's outputs and job "
            f"summary; run it in a job step (the runner sets {name}) or set {name} to a file"
        )
    path = Path(value)
    try:
        with path.open("a", encoding="utf-8"):
            pass  # opened to append, as every write to it does; nothing written yet
    except OSError as exc:
        raise StepFileError(
            f"{name} ({path}) cannot be written: {exc.strerror}; set {name} to a file this "
            "step can append to"
        ) from exc
    return path


def write_outputs(path: Path, outputs: Mapping[str, str]) -> None:
    """Append ``outputs`` to the step's output file, each in the delimited form."""
    lines = []
    for name, value in outputs.items():
        delimiter = f"ghadelimiter_{uuid.uuid4()}"
        lines.append(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")
    with path.open("a", encoding="utf-8") as handle:
        handle.write("".join(lines))


def append_summary(path: Path, markdown: str) -> None:
    with path.open("a", encoding="utf-8") as handle:
        handle.write(markdown if markdown.endswith("\n") else markdown + "\n")


def annotation(level: str, title: str, message: str) -> str:
    """A workflow command line (``::error title=...::message``), its data escaped as GitHub's
    toolkit escapes it so a message cannot issue a command of its own."""
    data = message.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    prop = title.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    prop = prop.replace(":", "%3A").replace(",", "%2C")
    return f"::{level} title={prop}::{data}"
