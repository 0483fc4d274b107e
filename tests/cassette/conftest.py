"""The gateway tests' fixtures (test CA, the scripted server over HTTPS taking only the real
key), for recording through the real gateway."""

from __future__ import annotations

from tests.gateway.conftest import ca_file, https_provider, test_ca

__all__ = ["ca_file", "https_provider", "test_ca"]
