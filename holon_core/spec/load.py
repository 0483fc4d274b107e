"""Load ``spec.yaml`` as the run's :class:`~holon_core.models.spec.Spec`.

Every refusal comes from :mod:`holon_core.spec.rules` (the check ``holon-agent --probe`` makes
too), with the file, the line and the field; the spec is then built from the mapping the rules
accepted, without pydantic. Unknown fields come back as warnings (forward compatibility).
"""

from __future__ import annotations

from pathlib import Path

from holon_core.models.spec import Spec
from holon_core.spec.file import MAX_SPEC_BYTES, read_spec_text
from holon_core.spec.rules import SpecDocument, read_spec

__all__ = ["MAX_SPEC_BYTES", "build_spec", "load_spec", "read_spec_text"]


def load_spec(path: Path) -> tuple[Spec, list[str]]:
    """The validated spec and a list of unknown-field warnings."""
    document = read_spec(path)
    return build_spec(document), document.warnings


def build_spec(document: SpecDocument) -> Spec:
    """The spec :func:`~holon_core.spec.rules.read_spec` accepted."""
    return Spec.from_mapping(document.data)
