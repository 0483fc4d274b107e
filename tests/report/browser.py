"""A real browser for the report tests: Debian's Chromium, driven by Playwright.

No browser is downloaded (``playwright install`` is never run): the machine's
``/usr/bin/chromium`` is launched headless with everything that could reach the network
switched off. A missing Chromium fails the test with the fix, never skips it.
Each page records what a person could not see but should never happen: console errors,
uncaught exceptions, dialogs (``alert``), and requests for anything outside the page.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import ConsoleMessage, Dialog, Page

CHROMIUM = Path(os.environ.get("HOLON_TEST_CHROMIUM", "/usr/bin/chromium"))
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@dataclass
class Watched:
    page: Page
    errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)


@contextmanager
def browser_page(url: str, *, height: int = 900) -> Iterator[Watched]:
    """``url`` opened in a fresh headless Chromium page, 1280 x ``height``."""
    if not CHROMIUM.is_file():
        pytest.fail(
            f"{CHROMIUM} is missing: the report tests need Debian's Chromium "
            "(apt-get install -y chromium; make test and .ci/run install it)"
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as play:
        browser = play.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": height})
            watched = Watched(page)

            def console(message: ConsoleMessage) -> None:
                if message.type == "error":
                    watched.errors.append(message.text)

            def dialog(d: Dialog) -> None:
                watched.dialogs.append(d.message)
                d.dismiss()

            page.on("console", console)
            page.on("pageerror", lambda e: watched.errors.append(f"uncaught: {e}"))
            page.on("dialog", dialog)
            page.on("request", lambda r: watched.requests.append(r.url))
            page.goto(url)
            yield watched
        finally:
            browser.close()


def keep_screenshot(watched: Watched, tmp: Path, name: str, *, full_page: bool = False) -> Path:
    """A PNG of what the page shows now, under ``tmp`` and, with ``HOLON_TEST_ARTIFACTS``
    set, copied there too (CI keeps that dir as an artifact)."""
    path = tmp / f"{name}.png"
    watched.page.screenshot(path=str(path), full_page=full_page)
    assert path.stat().st_size > 1000
    artifacts = os.environ.get("HOLON_TEST_ARTIFACTS")
    if artifacts:
        Path(artifacts).mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, Path(artifacts) / path.name)
    return path


def only_file_requests(watched: Watched, root: Path) -> list[str]:
    """Requests for anything but files under ``root`` (the page must fetch nothing else)."""
    prefix = root.as_uri()
    return [u for u in watched.requests if not u.startswith(prefix)]
