"""The job summary (``$GITHUB_STEP_SUMMARY``): outcome and why first, then the figures, the
files changed and the run's own summary.

Everything that comes from the record is text, never markup: GitHub renders the summary as
Markdown with HTML, so ``<`` and ``&`` are escaped everywhere, and table cells also escape
``|`` and lose their line breaks. The run's ``summary.md`` (which the engine may have
written) keeps its Markdown but not its HTML.
"""

from __future__ import annotations

from holon_core.action.result import MAX_FILES, RunResult

_HEADLINES = {
    "success": "✅ holon: success",
    "failure": "❌ holon: failure",
    "needs_human": "✋ holon: needs a person",
}


def job_summary(result: RunResult) -> str:
    """The Markdown the step appends to the job summary."""
    headline = _HEADLINES.get(result.outcome, f"holon: {text(result.outcome)}")
    lines = [f"## {headline} ({text(result.reason)})", "", why(result), ""]
    if result.error:
        lines += [f"> {text(result.error)}".replace("\n", "\n> "), ""]
    lines += ["| | |", "|---|---|"]
    for name, value in _rows(result):
        lines.append(f"| {name} | {cell(value)} |")
    lines.append("")
    if result.files:
        lines += ["### Files changed", ""]
        lines += [f"- `{cell(name).replace('`', '')}`" for name in result.files[:MAX_FILES]]
        if len(result.files) > MAX_FILES:
            lines.append(f"- … and {len(result.files) - MAX_FILES} more (see diff.patch)")
        lines.append("")
    if result.summary:
        lines += ["### Summary", "", text(result.summary).strip(), ""]
    if result.report is not None:
        lines += [
            f"The full report is `{cell(result.report.name)}` in the run's artifacts "
            "(upload it with `actions/upload-artifact`).",
            "",
        ]
    return "\n".join(lines)


def why(result: RunResult) -> str:
    """One sentence a reader who never saw holon understands."""
    from holon_core.report.explain import REASONS

    if result.reason == "no_manifest":
        return "holon stopped before the run left its record, so nothing can be said about it."
    if result.reason == "invalid_action_input":
        return "The action's inputs were refused, so nothing ran."
    return REASONS.get(result.reason, f"The run ended with reason {text(result.reason)}.")


def _rows(result: RunResult) -> list[tuple[str, str]]:
    rows = [("outcome", f"{result.outcome} (exit code {result.exit_code})")]
    if result.engine:
        rows.append(("engine", result.engine + (f" ({result.model})" if result.model else "")))
    if result.duration:
        rows.append(("duration", result.duration))
    if result.cost_usd is not None:
        source = f" ({result.cost_source})" if result.cost_source else ""
        rows.append(("cost", f"${result.cost_usd:.4f}{source}"))
    elif result.cost_source:
        rows.append(("cost", f"unknown ({result.cost_source})"))
    if result.tokens is not None:
        rows.append(("tokens", str(result.tokens)))
    if result.files_changed is not None:
        rows.append(("files changed", str(result.files_changed)))
    if result.pull_request:
        rows.append(("pull request", result.pull_request))
    return rows


def text(value: str) -> str:
    """Record text made safe for GitHub's Markdown: no HTML tag or entity survives."""
    return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def cell(value: str) -> str:
    """A table cell: text, one line, ``|`` escaped."""
    return text(value).replace("|", "\\|").replace("\r", " ").replace("\n", " ")
