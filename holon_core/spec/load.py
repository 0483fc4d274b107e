"""Load ``spec.yaml`` as the pydantic :class:`~holon_core.models.spec.Spec`.

Every refusal comes from :mod:`holon_core.spec.rules` (the check ``holon-agent --probe`` makes
too), with the file, the line and the field; the model is then built from a spec the rules
accepted. Unknown fields come back as warnings (forward compatibility).
"""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from holon_core.errors import SpecError
from holon_core.models.spec import Spec
from holon_core.spec.file import MAX_SPEC_BYTES, read_spec_text
from holon_core.spec.rules import SpecDocument, read_spec
from holon_core.untrusted.quoting import shorten

__all__ = ["MAX_SPEC_BYTES", "build_spec", "load_spec", "read_spec_text"]


def load_spec(path: Path) -> tuple[Spec, list[str]]:
    """The validated spec and a list of unknown-field warnings."""
    document = read_spec(path)
    return build_spec(document), document.warnings


def build_spec(document: SpecDocument) -> Spec:
    """The model of a spec :func:`~holon_core.spec.rules.read_spec` accepted."""
    try:
        return Spec.model_validate(document.data)
    except ValidationError as exc:  # the rules and the model disagree: say so, plainly
        raise SpecError(
            f"{document.path}: the spec passed holon's spec rules but not its model: "
            f"{shorten(str(exc), 600)}",
            hint="report this as a holon bug, with the spec",
        ) from None
