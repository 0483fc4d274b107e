"""Horizontal bar charts as inline SVG: no script, no fonts to fetch, readable when printed.

Each chart is one ``<svg role="img">`` with a ``<title>`` and an ``aria-label`` that says the
figures in words, so the numbers are there for a screen reader and for a test.
"""

from __future__ import annotations

from dataclasses import dataclass

from holon_core.report.markup import Markup, join, tag

_ROW = 28
_LABEL = 86
_WIDTH = 360
_VALUE = 78


@dataclass(frozen=True)
class Bar:
    label: str
    value: float | None  # None: no figure (drawn as "n/a", no bar)
    text: str  # the figure as shown, e.g. "75%" or "$0.0123"


def bar_chart(title: str, bars: list[Bar], *, maximum: float | None = None, tone: str) -> Markup:
    """One bar per row; ``maximum`` fixes the scale (100 for a rate), else the largest value."""
    known = [b.value for b in bars if b.value is not None]
    top = maximum if maximum is not None else max(known, default=0.0)
    track = _WIDTH - _LABEL - _VALUE
    height = _ROW * len(bars) + 8
    rows: list[Markup] = []
    for i, bar in enumerate(bars):
        y = 4 + i * _ROW
        width = 0.0 if not bar.value or top <= 0 else max(2.0, track * bar.value / top)
        rows.append(
            join(
                [
                    tag(
                        "text",
                        bar.label,
                        x=_LABEL - 8,
                        y=y + 19,
                        class_="chart-label",
                        text_anchor="end",
                    ),
                    tag(
                        "rect",
                        x=_LABEL,
                        y=y + 6,
                        width=track,
                        height=18,
                        rx=3,
                        class_="chart-track",
                    ),
                    tag(
                        "rect",
                        tag("title", f"{bar.label}: {bar.text}"),
                        x=_LABEL,
                        y=y + 6,
                        width=f"{width:.1f}",
                        height=18,
                        rx=3,
                        class_=f"chart-bar {tone}",
                    ),
                    tag("text", bar.text, x=_LABEL + track + 8, y=y + 19, class_="chart-value"),
                ]
            )
        )
    words = "; ".join(f"{b.label} {b.text}" for b in bars)
    svg = tag(
        "svg",
        tag("title", title),
        join(rows),
        xmlns="http://www.w3.org/2000/svg",
        viewBox=f"0 0 {_WIDTH} {height}",
        role="img",
        aria_label=f"{title}: {words}",
        class_="chart",
        preserveAspectRatio="xMinYMin meet",
    )
    return tag("figure", tag("figcaption", title), svg, class_="chart-box")
