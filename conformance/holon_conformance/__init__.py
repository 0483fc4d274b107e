"""holon-conformance: the scripted model server and the adapter conformance suite."""

from __future__ import annotations

__version__ = "0.1.0"
