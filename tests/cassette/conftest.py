"""The cassette tests' fixtures: the gateway's (test CA, the scripted server over HTTPS taking
only the real key), and one recording per engine that the tests of this package share."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import trustme
from holon_conformance.provider import ScriptedProvider

from tests.gateway.conftest import ca_file, https_provider, https_settings, test_ca

from .replay_kit import Recording, record

__all__ = ["ca_file", "https_provider", "recording", "test_ca"]


@pytest.fixture(scope="session")
def recording(
    test_ca: trustme.CA,
    ca_file: Path,
    engine_binary: Callable[[str], Path],
    tmp_path_factory: pytest.TempPathFactory,
) -> Callable[[str], Recording]:
    """Factory: ``recording(engine)``, the engine's write-and-run recorded through the gateway,
    made once per test process: the tests that only read a cassette (replay it, check it, list
    it) share it instead of each paying a real engine run. A test that changes the cassette
    copies it first; a recording with other settings (a skill) is made by its test."""
    made: dict[str, Recording] = {}

    def make(engine: str) -> Recording:
        if engine not in made:
            engine_binary(engine)
            where = tmp_path_factory.mktemp(f"recording-{engine}")
            with ScriptedProvider("write-and-run", **https_settings(test_ca)) as server:
                result = record(engine, server, ca_file, where, where / "cassette")
                requests = list(server.requests)
            manifest = result.manifest
            assert manifest is not None and manifest["outcome"] == "success", result.stderr
            made[engine] = Recording(where / "cassette", result, requests)
        return made[engine]

    return make
