"""What the gateway tests share: the real key the upstream insists on, and a stand-in adapter
declaring only what the gateway reads (``model_api``, ``endpoint_env``, ``credential_env``)."""

from __future__ import annotations

from typing import Any, ClassVar

from holon_core.engine.adapter import EngineAdapter

REAL_KEY = "sk-real-0123456789abcdef0123456789abcdef"


class WireAdapter(EngineAdapter):
    """An adapter as the gateway sees one: an API, an endpoint variable, key variables."""

    name: ClassVar[str] = "wire-test"
    model_api: ClassVar[str | None] = "anthropic-messages"
    credential_env: ClassVar[tuple[str, ...]] = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")
    suffix: ClassVar[str] = ""

    def endpoint_env(self, base_url: str) -> dict[str, str]:
        return {"ANTHROPIC_BASE_URL": base_url + self.suffix, "ANTHROPIC_API_KEY": "fake"}

    def launch(self, run: Any) -> Any:  # pragma: no cover - never launched
        raise NotImplementedError

    def event_parser(self, run: Any) -> Any:  # pragma: no cover
        raise NotImplementedError
