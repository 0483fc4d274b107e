"""A preflight or probe check result, shared by adapters, the preflight step and probe mode."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(slots=True)
class Check:
    """One named check; a failing check carries a hint and the reason code it implies."""

    name: str
    ok: bool
    detail: str = ""
    hint: str | None = None
    reason: str | None = None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "ok": self.ok, "detail": self.detail}
        if self.hint and not self.ok:
            out["hint"] = self.hint
        return out

    def message(self) -> str:
        text = f"{self.name}: {self.detail}"
        return f"{text}; fix: {self.hint}" if self.hint and not self.ok else text
