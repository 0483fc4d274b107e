"""Whether a path given as text leaves the directory it is relative to, by its text alone.

The one rule for artifact paths (a spec's ``output.artifacts``, a manifest's ``artifacts``)
and for a name the runner looks up in an output directory: absolute, or climbing with ``..``.
"""

from __future__ import annotations


def leaves_root(path: str) -> bool:
    """``/etc/passwd`` and ``a/../../b`` leave; ``out/report.md`` stays."""
    return path.startswith("/") or ".." in path.split("/")
