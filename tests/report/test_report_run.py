"""``holon report`` of one run, opened in a real browser (Debian's Chromium via Playwright):
a failed run of the real Claude Code against the scripted model server, and a hostile
record written by the replay engine."""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml
from holon_conformance.provider import ScriptedProvider, load_scenario

from holon_core.models.manifest import REASON_CODES
from holon_core.report.explain import REASONS
from tests.runner import kit as runner_kit

from .browser import browser_page, keep_screenshot, only_file_requests
from .kit import replay_run, workspace

FAILING_COMMAND = 'python3 -c \'import greet; assert greet.greet("x") == "hi x"\''
#: Claude writes a module, its check fails, and it claims success anyway.
SCENARIO = {
    "description": "a module written, its check failing, success claimed",
    "turns": [
        {
            "say": "I will add the greeting module and check it.",
            "write_file": {
                "path": "greet.py",
                "content": "def greet(name):\n    return f'hello {name}'\n",
            },
        },
        {"run_shell": {"command": FAILING_COMMAND}},
        {"final": {"text": "Done, all good."}},
    ],
}


def holon(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "holon_core", *args],
        env=runner_kit.base_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_failed_claude_run_says_why_on_the_first_screen(engine_binary, tmp_path: Path) -> None:
    """holon run writes report.html and prints its path; in Chromium the first screen shows
    the outcome, the reason in words and the failed command; a click opens a tool call; the
    diff is highlighted; no console error, nothing fetched."""
    engine_binary("claude")
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text(yaml.safe_dump(SCENARIO))
    skill = tmp_path / "greeting-style"
    skill.mkdir()
    (skill / "SKILL.md").write_text(
        "---\nname: greeting-style\ndescription: How greetings are worded.\n---\nSay hello.\n"
    )
    with ScriptedProvider(load_scenario(scenario)) as provider:
        argv = ["--goal", "Add greet.py with a greet(name) function", "--skill", str(skill)]
        ran = runner_kit.holon_run(
            tmp_path,
            [*argv, "--workspace", str(workspace(tmp_path)), "--engine", "claude", "--json"],
            env=provider.engine_env("claude"),
            timeout=240,
        )
    result = json.loads(ran.stdout)
    assert (result["outcome"], result["reason"]) == ("failure", "tool_failed"), ran.stderr
    report = Path(result["paths"]["report"])
    assert report == Path(result["paths"]["output_dir"]) / "report.html"
    assert report.is_file()

    with browser_page(report.as_uri()) as seen:
        page = seen.page
        verdict = page.locator("#verdict")
        assert "failure" in verdict.inner_text()
        assert "tool_failed" in verdict.inner_text()
        why = page.get_by_text(REASONS["tool_failed"])
        first_screen = [why, page.locator("#failed-commands").get_by_text(FAILING_COMMAND)]
        for element in first_screen:
            box = element.bounding_box()
            assert box is not None and box["y"] + box["height"] <= 900, element
        assert "claude" in page.locator("#facts").inner_text()
        keep_screenshot(seen, tmp_path, "report-run-failed")

        write_step = page.locator("details.step", has_text="greet.py").first
        body = write_step.locator(".body")
        assert not body.is_visible()
        write_step.locator("summary").click()
        assert body.is_visible()
        failed_step = page.locator("details.step.failed").first
        assert "exit 1" in failed_step.locator("summary").inner_text()
        assert "AssertionError" in failed_step.locator(".body").inner_text()

        changes = page.locator("#changes")
        assert changes.inner_text().startswith("Changes (2 files)")  # greet.py, its .pyc
        diff = page.locator(".file", has_text="greet.py")
        assert diff.locator(".dl.add").count() == 2
        assert diff.locator(".dl.add .k").first.inner_text().strip() == "def"  # Pygments' keyword
        assert page.locator("a", has_text="evidence/events.ndjson").count() == 1
        # skills, and the gateway's figures, as the record has them
        manifest = json.loads((report.parent / "manifest.json").read_text())
        (used,) = manifest["metadata"]["skills"]
        seen_words = {True: "yes", False: "no", None: "cannot tell"}
        skill_row = page.locator("#skills + table tbody tr").first.locator("td")
        assert skill_row.all_inner_texts()[0] == "greeting-style"
        assert skill_row.all_inner_texts()[-1] == seen_words[used.get("seen_by_engine")]
        calls = (report.parent / "evidence" / "model-calls.ndjson").read_text().splitlines()
        assert page.locator("#model-calls + details tbody tr").count() == len(calls) > 0
        cost = page.locator("#facts div", has_text="Cost").inner_text()
        assert f"${manifest['metadata']['cost']['usd']:,.4f}" in cost and "metered" in cost
        keep_screenshot(seen, tmp_path, "report-run-failed-full", full_page=True)
        assert seen.errors == []
        assert seen.dialogs == []
        assert only_file_requests(seen, report.parent) == []


HOSTILE_NAME = "<img src=x onerror=alert(1)>.py"
HOSTILE_SAY = (
    "<script>alert('said')</script><b id=injected>bold</b>"
    "<script>document.body.appendChild(document.createElement('marquee'))</script>"
)
HOSTILE_RUN = "echo '<script>alert(2)</script>'; echo '<img src=y onerror=alert(3)>'"


def test_hostile_record_renders_as_text_and_runs_nothing(tmp_path: Path) -> None:
    """HTML and script in the engine's words, its command output, a file name and the diff
    are shown as the characters they are: no dialog, no element they would make, no fetch."""
    steps: list[dict[str, Any]] = [
        {"write": {"path": HOSTILE_NAME, "content": "<script>alert('diff')</script>\n"}},
        {"run": HOSTILE_RUN},
        {"say": HOSTILE_SAY},
    ]
    spec = {"metadata": {"name": "<i>hostile</i>"}, "goal": "<script>alert('goal')</script>"}
    result = replay_run(tmp_path, steps, spec)
    report = Path(result["paths"]["report"])

    with browser_page(report.as_uri()) as seen:
        page = seen.page
        page.locator("[data-fold=open]").click()  # every step open: all their text shown
        text = page.locator("main").inner_text()
        for literal in (HOSTILE_NAME, HOSTILE_SAY, "<script>alert(2)</script>",
                        "<img src=y onerror=alert(3)>", "<script>alert('diff')</script>",
                        "<i>hostile</i>", "<script>alert('goal')</script>"):  # fmt: skip
            assert literal in text, literal
        assert page.locator("script").count() == 1  # the page's own
        for made in ("img", "marquee", "#injected", "i", "b"):
            assert page.locator(made).count() == 0, made
        keep_screenshot(seen, tmp_path, "report-hostile", full_page=True)
        assert seen.dialogs == []
        assert seen.errors == []
        assert only_file_requests(seen, report.parent) == []


def test_holon_report_of_an_output_dir_and_bad_paths(tmp_path: Path) -> None:
    """holon report OUTPUT_DIR --out FILE writes there and prints the path; a dir without a
    record and an --out in a missing dir are refused with the fix, exit 1."""
    spec = {"metadata": {"name": "t"}, "goal": "say"}
    result = replay_run(tmp_path, [{"say": "nothing to do"}], spec, "--no-report")
    output = Path(result["paths"]["output_dir"])
    assert result["paths"]["report"] is None and not (output / "report.html").exists()

    out = tmp_path / "page.html"
    done = holon(tmp_path, "report", str(output), "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"{out}\n"
    page = out.read_text()
    assert csp_of(page) == (
        f"default-src 'none'; style-src 'unsafe-inline'; script-src '{hash_of_script(page)}'"
    )
    assert "The engine finished the task and every check holon makes passed." in page

    done = holon(tmp_path, "report", str(tmp_path / "task"))
    assert done.returncode == 1
    assert "holds no record" in done.stderr and "point holon report at" in done.stderr
    done = holon(tmp_path, "report", str(output), "--out", str(tmp_path / "no" / "x.html"))
    assert done.returncode == 1
    assert "cannot write the report" in done.stderr and "--out" in done.stderr


def csp_of(page: str) -> str:
    found = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', page)
    assert found is not None and page.index(found.group(0)) < page.index("<title>")
    return html.unescape(found.group(1))


def hash_of_script(page: str) -> str:
    """The CSP source of the page's one script, computed from the page itself."""
    scripts = re.findall(r"<script>(.*?)</script>", page, flags=re.DOTALL)
    assert len(scripts) == 1
    return "sha256-" + base64.b64encode(hashlib.sha256(scripts[0].encode()).digest()).decode()


def test_every_reason_code_has_a_sentence() -> None:
    assert [code for code in REASON_CODES if code not in REASONS] == []


def test_a_link_planted_at_report_html_is_replaced_not_followed(tmp_path: Path) -> None:
    """The engine can write its output dir: a symlink it leaves at report.html is replaced
    by the page; the file it pointed at is untouched."""
    target = tmp_path / "precious.txt"
    target.write_text("keep me\n")
    steps = [{"run": f'ln -s {target} "$HOLON_OUTPUT_DIR/report.html"'}, {"say": "linked"}]
    result = replay_run(tmp_path, steps, {"metadata": {"name": "t"}, "goal": "link"})
    report = Path(result["paths"]["report"])
    assert not report.is_symlink() and "holon · run report" in report.read_text()
    assert target.read_text() == "keep me\n"
