"""What every check class shares: the requirement and capability marks, the common base.

Kept apart from :mod:`base` so check classes can live in several modules without cycles.
"""

from __future__ import annotations

from typing import ClassVar

import pytest

req = pytest.mark.holon_req
cap = pytest.mark.holon_cap


class CheckBase:
    #: Set in a subclass to certify one adapter without ``--holon-adapter``.
    adapter_name: ClassVar[str | None] = None
