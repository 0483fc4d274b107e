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

May import: the standard library, Pygments (when installed), ``holon_core.files``,
``holon_core.errors`` and ``holon_core.models.manifest`` (reason codes). Nothing of the
runtime pipeline imports this package except the commands that write a report at the end.
"""

from __future__ import annotations

from holon_core.report.write import (
    REPORT_NAME,
    write_batch_report,
    write_report,
    write_run_report,
)

__all__ = ["REPORT_NAME", "write_batch_report", "write_report", "write_run_report"]
