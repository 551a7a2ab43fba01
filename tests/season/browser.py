"""Chromium where a person would look: a member's board page, already open, driven by
Playwright in a thread of its own (tests/e2e/browser.py), signed in with the member's own
session cookie from the season's HTTP client."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.e2e.browser import BrowserThread, expect
from tests.season.world import Member

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"]


@contextlib.contextmanager
def chromium() -> Iterator[Any]:
    """A headless Chromium (a proxy: tests/e2e/browser.py), closed at the end."""
    assert Path(CHROMIUM).exists(), "Debian's chromium is not installed: run `make chromium`"
    from playwright.sync_api import sync_playwright

    expect.set_options(timeout=60_000)
    thread = BrowserThread()
    try:
        playwright = thread.run(lambda: sync_playwright().start())
        try:
            browser = thread.run(
                playwright.chromium.launch,
                executable_path=CHROMIUM,
                headless=True,
                args=CHROMIUM_ARGS,
            )
            yield thread.wrap(browser)
            thread.run(browser.close)
        finally:
            thread.run(playwright.stop)
    finally:
        thread.close()


def open_board(browser: Any, member: Member, match_id: int, errors: list[str]) -> Any:
    """``member``'s board page, signed in as them, once its socket has synced."""
    context = browser.new_context(base_url=member.site)
    context.add_cookies([{"name": "sessionid", "value": member.session_cookie, "url": member.site}])
    page = context.new_page()
    page.on("pageerror", lambda error: errors.append(f"{page.url}: {error}"))
    page.goto(f"/matches/{match_id}/")
    expect(page.locator("#match")).to_have_attribute("data-synced", "yes")
    return page
