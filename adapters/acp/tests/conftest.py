"""pytest fixtures of the acp adapter tests (defined in ``acp_kit``)."""

from __future__ import annotations

from acp_kit import manifest_schema, task, valid_manifest

__all__ = ["manifest_schema", "task", "valid_manifest"]
