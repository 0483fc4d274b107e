"""The HTML report: one self-contained page per run or batch (``holon report``, docs/report.md).

Owns reading a finished record (a ``holon run`` run dir, an output dir with ``manifest.json``
and ``evidence/``, or a ``holon batch`` results dir) and rendering it as one HTML file that
opens from a CI artifact or a mail attachment: no network, no external assets, and nothing
the record holds can run (every value escaped, a strict Content-Security-Policy that admits
only the page's own script by its hash).

Modules: ``load`` (the record, read with caps), ``markup`` (escaping, the only way markup is
built), ``explain`` (one sentence per reason code), ``timeline`` (events into steps),
``diff_view`` (``diff.patch`` per file, highlighted), ``charts`` (inline SVG), ``page`` (the
document shell: CSS, script, CSP), ``run_page`` / ``batch_page`` (the two pages), ``write``
(where the file goes, written atomically).

May import: the standard library, Pygments (when installed), ``holon_core.untrusted`` (the
record read as the engine's files), ``holon_core.errors`` and, for the batch page, the
batch's own figures (``holon_core.batch.report``, ``holon_core.batch.results``), so the
page and the batch's ``report.md`` agree. Nothing of the runtime pipeline imports this
package except the commands that write a report at the end.
"""

from __future__ import annotations

from typing import Any

__all__ = ["REPORT_NAME", "write_batch_report", "write_report", "write_run_report"]


def __getattr__(name: str) -> Any:
    """The writers, imported when first used: ``holon run`` imports ``report.finish`` at
    start-up, and the pages import the batch package, which imports the runner."""
    if name in __all__:
        from holon_core.report import write

        return getattr(write, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
