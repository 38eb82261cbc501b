"""A headless Chromium for the tests, driven by playwright's Python package (tests only).

Playwright drives Debian's ``chromium`` by its path (``executable_path``), so no
browser is downloaded (``playwright install`` is never run).  ``skip_reason`` says
why a browser test cannot run here: the package or the browser is missing
(``make test`` installs both where the machine allows).
"""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator
from pathlib import Path

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def find_chromium() -> str | None:
    if Path("/usr/bin/chromium").exists():
        return "/usr/bin/chromium"
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


def skip_reason() -> str | None:
    """Why a browser test cannot run here, or None."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright's Python package is not installed (pip install playwright; make installs it)"
    if find_chromium() is None:
        return "Debian's chromium is not installed (apt-get install -y chromium; make test does it as root)"
    return None


@contextlib.contextmanager
def browser_page(width: int = 1200, height: int = 800, bypass_csp: bool = False) -> Iterator:
    """One page in a fresh headless Chromium, closed afterwards.

    ``bypass_csp`` lets the test's own script run in a page whose Content-Security-Policy
    allows only its own script (playwright's ``wait_for_function`` evaluates a string).
    """
    from playwright.sync_api import sync_playwright

    chromium = find_chromium()
    assert chromium is not None, skip_reason()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=FLAGS, timeout=60_000)
        try:
            context = browser.new_context(viewport={"width": width, "height": height}, bypass_csp=bypass_csp)
            page = context.new_page()
            page.set_default_timeout(60_000)
            yield page
        finally:
            browser.close()
