"""The user's own prices (``HOLON_PRICES=FILE``): negotiated rates, API gateways, and models
genai-prices does not know. A model named here is priced from the file, before the library.

The file (YAML or JSON), in US dollars per million tokens::

    models:
      my-finetune:
        input: 3.00
        output: 15.00
        cache_read: 0.30     # optional, default: the input price
        cache_write: 3.75    # optional, default: the input price

``input_tokens`` counts cache reads and writes too (docs/gateway.md), so the plain input
price applies to what is left after them.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from holon_core.gateway.usage import Tokens

_FIELDS = ("input", "output", "cache_read", "cache_write")
_FIX = "fix the file or unset HOLON_PRICES (docs/gateway.md, Cost)"


class PriceTableError(ValueError):
    """The file named by ``HOLON_PRICES`` cannot be used; the message names the fix."""


@dataclass(frozen=True)
class ModelPrice:
    input: float
    output: float
    cache_read: float
    cache_write: float

    def cost(self, tokens: Tokens) -> float:
        plain = max(tokens.input_tokens - tokens.cache_read_tokens - tokens.cache_write_tokens, 0)
        total = (
            plain * self.input
            + tokens.cache_read_tokens * self.cache_read
            + tokens.cache_write_tokens * self.cache_write
            + tokens.output_tokens * self.output
        )
        return total / 1_000_000


@dataclass(frozen=True)
class PriceTable:
    path: str
    sha256: str
    models: dict[str, ModelPrice]

    def provenance(self) -> dict[str, str]:
        return {"table": self.path, "table_sha256": self.sha256}


def load_table(path: str) -> PriceTable:
    """Read and check the table; :class:`PriceTableError` naming the problem otherwise."""
    import yaml

    from holon_core.untrusted import yaml_safe

    where = Path(path).expanduser()
    try:
        raw = where.read_bytes()
    except OSError as exc:
        raise PriceTableError(f"HOLON_PRICES={path}: cannot read it ({exc}); {_FIX}") from exc
    try:
        data = yaml_safe.load(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, yaml.YAMLError) as exc:
        raise PriceTableError(f"HOLON_PRICES={path}: not YAML or JSON ({exc}); {_FIX}") from exc
    models = data.get("models") if isinstance(data, dict) else None
    if not isinstance(models, dict) or not models:
        raise PriceTableError(f"HOLON_PRICES={path}: no `models:` mapping; {_FIX}")
    table = {str(name): _model_price(path, str(name), entry) for name, entry in models.items()}
    return PriceTable(str(where), hashlib.sha256(raw).hexdigest(), table)


def _model_price(path: str, name: str, entry: Any) -> ModelPrice:
    if not isinstance(entry, dict):
        raise PriceTableError(f"HOLON_PRICES={path}: model {name!r} needs a mapping; {_FIX}")
    unknown = sorted(set(map(str, entry)) - set(_FIELDS))
    if unknown:
        raise PriceTableError(
            f"HOLON_PRICES={path}: model {name!r} has unknown keys {', '.join(unknown)} "
            f"(known: {', '.join(_FIELDS)}); {_FIX}"
        )
    values: dict[str, float] = {}
    for key in _FIELDS:
        value = entry.get(key)
        if value is None and key in ("input", "output"):
            raise PriceTableError(f"HOLON_PRICES={path}: model {name!r} needs `{key}`; {_FIX}")
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise PriceTableError(
                f"HOLON_PRICES={path}: model {name!r} `{key}` must be a number >= 0 "
                f"(USD per million tokens), not {value!r}; {_FIX}"
            )
        values[key] = float(value)
    return ModelPrice(
        input=values["input"],
        output=values["output"],
        cache_read=values.get("cache_read", values["input"]),
        cache_write=values.get("cache_write", values["input"]),
    )
