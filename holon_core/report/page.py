"""The document shell: inline CSS, the page's one script, and the CSP that admits only it.

``default-src 'none'`` forbids every fetch (images, fonts, frames, connections) and every
script but ours, named by its SHA-256: an inline ``<script>``, an event handler attribute or
a ``javascript:`` link that slipped into the record could not run even if it were not
escaped. The script only folds steps and filters the batch grid.
"""

from __future__ import annotations

import base64
import hashlib

from holon_core.report.diff_view import style_css
from holon_core.report.markup import Markup, tag

SCRIPT = """
(function () {
  "use strict";
  document.querySelectorAll("[data-fold]").forEach(function (button) {
    button.addEventListener("click", function () {
      var open = button.getAttribute("data-fold") === "open";
      document.querySelectorAll("details.step").forEach(function (d) { d.open = open; });
    });
  });
  var boxes = document.querySelectorAll("input[data-outcome-filter]");
  var reason = document.getElementById("reason-filter");
  function apply() {
    var shown = {};
    boxes.forEach(function (b) { shown[b.value] = b.checked; });
    var want = reason ? reason.value : "";
    var visible = 0;
    document.querySelectorAll("[data-outcome]").forEach(function (el) {
      var ok = shown[el.getAttribute("data-outcome")] !== false &&
        (!want || el.getAttribute("data-reason") === want);
      el.hidden = !ok;
      if (ok && el.tagName === "TR") { visible += 1; }
    });
    var count = document.getElementById("filter-count");
    if (count) { count.textContent = visible + " shown"; }
  }
  boxes.forEach(function (b) { b.addEventListener("change", apply); });
  if (reason) { reason.addEventListener("change", apply); }
  if (boxes.length) { apply(); }
})();
"""

CSS = """
:root { --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --soft: #f6f8fa;
  --ok: #1a7f37; --ok-bg: #dafbe1; --bad: #cf222e; --bad-bg: #ffebe9;
  --warn: #9a6700; --warn-bg: #fff8c5; --accent: #0969da; }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { margin: 0; color: var(--fg); background: #fff; line-height: 1.5;
  font: 15px/1.5 -apple-system, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif; }
main { max-width: 1120px; margin: 0 auto; padding: 24px 28px 64px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 36px 0 10px; padding-bottom: 6px;
  border-bottom: 1px solid var(--line); }
a { color: var(--accent); }
code, pre, .mono { font-family: ui-monospace, "SFMono-Regular", "DejaVu Sans Mono", Menlo,
  Consolas, monospace; font-size: 13px; }
pre { margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; }
.muted { color: var(--muted); }
.brand { color: var(--muted); font-size: 13px; letter-spacing: .04em; text-transform: uppercase; }
.verdict { border: 1px solid var(--line); border-left: 6px solid var(--muted);
  border-radius: 8px; padding: 18px 22px; margin: 14px 0 18px; }
.verdict.success { border-left-color: var(--ok); background: linear-gradient(90deg,
  var(--ok-bg), #fff 60%); }
.verdict.failure { border-left-color: var(--bad); background: linear-gradient(90deg,
  var(--bad-bg), #fff 60%); }
.verdict.needs_human { border-left-color: var(--warn); background: linear-gradient(90deg,
  var(--warn-bg), #fff 60%); }
.verdict .why { font-size: 17px; margin: 8px 0 4px; }
.verdict .error { margin-top: 10px; padding: 10px 12px; background: #fff;
  border: 1px solid var(--line); border-radius: 6px; }
.badge { display: inline-block; padding: 1px 10px; border-radius: 999px; font-weight: 600;
  font-size: 13px; border: 1px solid transparent; white-space: nowrap; }
.badge.success { color: var(--ok); background: var(--ok-bg); border-color: #aceebb; }
.badge.failure { color: var(--bad); background: var(--bad-bg); border-color: #ffcecb; }
.badge.needs_human { color: var(--warn); background: var(--warn-bg); border-color: #f5e0a0; }
.badge.plain { color: var(--muted); background: var(--soft); border-color: var(--line); }
.verdict .badge { font-size: 15px; padding: 3px 14px; }
.reason { font-family: ui-monospace, Menlo, monospace; color: var(--muted); margin-left: 8px; }
.facts { display: flex; flex-wrap: wrap; border: 1px solid var(--line); border-radius: 8px;
  overflow: hidden; margin: 0 0 8px; }
.facts div { flex: 1 1 140px; padding: 8px 12px; box-shadow: 1px 1px 0 var(--line); }
.facts dt { font-size: 12px; color: var(--muted); text-transform: uppercase;
  letter-spacing: .03em; }
.facts dd { margin: 0; font-weight: 600; overflow-wrap: anywhere; }
.facts dd small { font-weight: 400; color: var(--muted); }
table { border-collapse: collapse; width: 100%; font-size: 14px; }
th, td { text-align: left; padding: 6px 10px; border-bottom: 1px solid var(--line);
  vertical-align: top; }
th { font-size: 12px; color: var(--muted); text-transform: uppercase; letter-spacing: .03em; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tbody th { text-transform: none; font-size: 14px; color: var(--fg); letter-spacing: 0; }
ul.plain { padding-left: 20px; margin: 6px 0; }
.notice { border: 1px solid #f5e0a0; background: var(--warn-bg); border-radius: 6px;
  padding: 8px 12px; margin: 6px 0; }
.timeline { border-left: 2px solid var(--line); margin-left: 8px; padding-left: 18px; }
.said { margin: 10px 0; }
.said .who { font-size: 12px; color: var(--muted); text-transform: uppercase; }
.said.message .text { background: var(--soft); border-radius: 8px; padding: 8px 12px; }
.said.error .text, .said.stderr pre { color: var(--bad); }
.said.note, .said.retry { color: var(--muted); font-size: 13px; }
details.step { border: 1px solid var(--line); border-radius: 6px; margin: 8px 0;
  background: #fff; }
details.step > summary { cursor: pointer; padding: 6px 10px; display: flex; gap: 10px;
  align-items: baseline; list-style: none; }
details.step > summary::-webkit-details-marker { display: none; }
details.step > summary::before { content: "▸"; color: var(--muted); }
details.step[open] > summary::before { content: "▾"; }
details.step.failed { border-color: #ffcecb; }
details.step .tool { font-weight: 600; white-space: nowrap; }
details.step .subject { flex: 1; overflow: hidden; text-overflow: ellipsis;
  white-space: nowrap; min-width: 0; }
details.step .body { border-top: 1px solid var(--line); padding: 8px 10px;
  background: var(--soft); }
details.step .body pre { max-height: 420px; overflow: auto; }
details.step ul.network { margin: 2px 0; padding-left: 18px; font-family: ui-monospace, Menlo,
  monospace; font-size: 13px; }
details.step .attempt.denied .verdict { color: var(--bad); font-weight: 600; }
details.step .attempt.allowed .verdict { color: var(--ok); }
details.step .label { font-size: 12px; color: var(--muted); margin: 6px 0 2px; }
.toolbar { display: flex; gap: 8px; align-items: center; margin: 0 0 8px; flex-wrap: wrap; }
button { font: inherit; font-size: 13px; padding: 3px 10px; border-radius: 6px;
  border: 1px solid var(--line); background: var(--soft); cursor: pointer; }
.file { border: 1px solid var(--line); border-radius: 6px; margin: 12px 0; overflow: hidden; }
.file > summary { cursor: pointer; padding: 6px 10px; background: var(--soft);
  font-family: ui-monospace, Menlo, monospace; font-size: 13px; display: flex; gap: 10px; }
.file .stat-add { color: var(--ok); } .file .stat-del { color: var(--bad); }
.file .nolines { margin: 6px 10px; font-size: 13px; }
pre.diff { white-space: pre; overflow-x: auto; padding: 4px 0; }
pre.diff .dl { display: block; padding: 0 10px; min-height: 1.4em; }
pre.diff .mark { display: inline-block; width: 1.2em; color: var(--muted);
  user-select: none; }
pre.diff .add { background: #e6ffec; } pre.diff .del { background: #ffebe9; }
pre.diff .hunk { background: #ddf4ff; color: var(--muted); }
pre.diff .meta { color: var(--muted); font-style: italic; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(320px, 1fr));
  gap: 14px; }
.chart-box { margin: 0; border: 1px solid var(--line); border-radius: 8px; padding: 10px; }
.chart-box figcaption { font-weight: 600; font-size: 14px; margin-bottom: 4px; }
svg.chart { width: 100%; height: auto; display: block; }
.chart-label, .chart-value { font-size: 14px; fill: var(--fg); }
.chart-track { fill: var(--soft); }
.chart-bar.ok { fill: var(--ok); } .chart-bar.cost { fill: #8250df; }
.chart-bar.time { fill: var(--accent); }
table.grid td { min-width: 120px; }
table.grid .run { display: block; margin: 2px 0; text-decoration: none; }
.filters { display: flex; gap: 16px; flex-wrap: wrap; align-items: center;
  padding: 8px 12px; border: 1px solid var(--line); border-radius: 8px; margin: 8px 0; }
.filters label { white-space: nowrap; }
details.summary > summary { cursor: pointer; color: var(--muted); }
details.summary pre { margin-top: 8px; padding: 10px 12px; background: var(--soft);
  border-radius: 6px; }
footer { margin-top: 48px; color: var(--muted); font-size: 13px; }
"""


def script_hash() -> str:
    digest = hashlib.sha256(SCRIPT.encode("utf-8")).digest()
    return "sha256-" + base64.b64encode(digest).decode("ascii")


def csp() -> str:
    return f"default-src 'none'; style-src 'unsafe-inline'; script-src '{script_hash()}'"


#: How every page starts, before anything from the record: ``--out`` replaces only a file
#: that starts so (:mod:`holon_core.report.write`).
PAGE_START = (
    '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
    '<meta http-equiv="Content-Security-Policy" content="default-src '
)


def document(title: str, body: Markup) -> str:
    """The whole page; the CSP meta tag comes first, before anything from the record."""
    head = "".join(
        [
            '<meta charset="utf-8">',
            tag("meta", http_equiv="Content-Security-Policy", content=csp()),
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            '<meta name="referrer" content="no-referrer">',
            tag("title", title),
            f"<style>{CSS}\n{style_css('.code')}</style>",
        ]
    )
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head>{head}</head>'
        f"<body><main>{body}</main><script>{SCRIPT}</script></body></html>\n"
    )
