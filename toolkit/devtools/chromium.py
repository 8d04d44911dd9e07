"""Debian's chromium, headless, driven by Playwright: the real browser of the graph page's tests and benchmark.
Nothing is downloaded (never `playwright install`): the browser is the system's, which `make test` installs."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # playwright is a test dependency: only its callers load it
    from playwright.sync_api import Browser

CHROMIUM = Path("/usr/bin/chromium")
# No network of its own (updates, sync, QUIC probes), no GPU, no sandbox (root in CI).
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@contextmanager
def headless_chromium() -> Iterator[Browser]:
    """The system's chromium, closed on exit."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=FLAGS)
        try:
            yield browser
        finally:
            browser.close()
