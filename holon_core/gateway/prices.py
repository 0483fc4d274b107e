"""Prices from genai-prices (PyPI, maintained by the pydantic team): never a hand-written table.

The library's bundled data snapshot is used as shipped (its auto-update from the network is
never started), so a run's cost is reproducible from the recorded library version. A model
the library does not know costs ``None``: the caller says so and never guesses. The import
takes about half a second of CPU, so :func:`warm_up` does it in a thread while the engine
starts.
"""

from __future__ import annotations

import threading
from functools import cache
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Any

from holon_core.gateway.apis import PRICE_PROVIDERS

if TYPE_CHECKING:
    from holon_core.gateway.usage import Tokens

LIBRARY = "genai-prices"


def provenance() -> dict[str, str]:
    """What priced the calls: the library, its version, and which of its data."""
    try:
        found = version(LIBRARY)
    except PackageNotFoundError:  # pragma: no cover - a dependency of holon-core
        found = "missing"
    return {"library": LIBRARY, "version": found, "data": f"bundled snapshot of {LIBRARY} {found}"}


def warm_up() -> None:
    """Import the library (and build its lookup) in the background."""
    threading.Thread(target=_library, name="holon-prices-warm-up", daemon=True).start()


@cache
def _library() -> Any:
    import genai_prices

    return genai_prices


_lock = threading.Lock()


def price(api: str, model: str | None, tokens: Tokens) -> float | None:
    """The call's cost in USD, or None when the library has no price for ``model``."""
    provider = PRICE_PROVIDERS.get(api)
    if not model or provider is None:
        return None
    with _lock:  # the library's lookup caches are plain dicts
        lib = _library()
        usage = lib.Usage(
            input_tokens=tokens.input_tokens,
            output_tokens=tokens.output_tokens,
            cache_read_tokens=tokens.cache_read_tokens,
            cache_write_tokens=tokens.cache_write_tokens,
        )
        try:
            calc = lib.calc_price(usage, model, provider_id=provider)
        except (LookupError, ValueError):
            return None
    return float(calc.total_price)
