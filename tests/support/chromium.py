"""Debian's chromium for the browser tests (never a downloaded browser): where it is, how it
is started, and the skip that says how to get it."""

from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--autoplay-policy=no-user-gesture-required",  # the venue pager's beep without a click first
]
NEEDED = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="/usr/bin/chromium is missing: install Debian's chromium and fonts-noto-cjk to run "
    "the browser tests (never `playwright install`)",
)


@pytest.fixture(scope="module")
def browser():
    """Chromium, headless, for one test module's pages (tests/conftest.py brings it in)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield browser
        browser.close()
