"""Fixtures for the model gateway: a test CA (trustme) and the scripted model server as an
HTTPS upstream that insists on the real key."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
import trustme

from .kit import REAL_KEY

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path


@pytest.fixture(scope="session")
def test_ca() -> trustme.CA:
    return trustme.CA()


@pytest.fixture(scope="session")
def ca_file(test_ca: trustme.CA, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("ca") / "ca.pem"
    test_ca.cert_pem.write_to_path(str(path))
    return path


def https_settings(test_ca: trustme.CA) -> dict[str, Any]:
    """The scripted model server's settings for HTTPS on 127.0.0.1 requiring ``REAL_KEY``."""
    import ssl

    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    test_ca.issue_cert("127.0.0.1").configure_cert(context)
    return {"ssl_context": context, "api_key": REAL_KEY}


@pytest.fixture
def https_provider(test_ca: trustme.CA, scripted_provider: Any) -> Iterator[Any]:
    """Factory: the scripted model server over HTTPS (127.0.0.1), requiring ``REAL_KEY``."""

    def make(scenario: str, **kwargs: Any) -> Any:
        return scripted_provider(scenario, **https_settings(test_ca), **kwargs)

    yield make
