"""The packaged RFC-0002 suite module: what ``pytest --holon-adapter NAME`` collects.

Named ``run_*`` so directory scans never collect it by accident; it runs only when given on
the command line (the plugin adds it when no test path is given).
"""

from __future__ import annotations

from holon_conformance.suite.base import ConformanceSuite


class TestRFC0002(ConformanceSuite):
    """Every check, parametrized over the ``--holon-adapter`` options."""
