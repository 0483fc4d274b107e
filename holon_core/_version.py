"""The holon-core version, kept in one place so probe mode need not import importlib.metadata."""

from __future__ import annotations

__version__ = "0.1.0"
