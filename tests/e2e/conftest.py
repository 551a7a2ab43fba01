"""A browser for the browser tests, on the live server (tests/live_server.py).

Chromium runs once per test module, driven from a thread of its own (tests/e2e/browser.py),
so the tests' own database calls run where no event loop is. Each test makes its own data
and its own browser contexts, closed after the test.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.test import Client

from accounts.models import Member
from tests.e2e.browser import BrowserThread, Remote, expect

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 375, "height": 812}


@pytest.fixture(scope="module")
def browser(live_server_url) -> Iterator[Remote]:
    """Chromium for one test module, driven from a thread of its own (tests/e2e/browser.py):
    Playwright's event loop lives there, so the tests' own ORM calls between browser steps
    run in the main thread with no event loop, under Django's async-safety check."""
    if not Path(CHROMIUM).exists():
        pytest.fail("Debian's chromium is not installed: run `make chromium` (make test does)")
    from playwright.sync_api import sync_playwright

    thread = BrowserThread()
    try:
        playwright = thread.run(lambda: sync_playwright().start())
        try:
            chromium = thread.run(
                playwright.chromium.launch,
                executable_path=CHROMIUM,
                headless=True,
                args=CHROMIUM_ARGS,
            )
            yield thread.wrap(chromium)
            thread.run(chromium.close)
        finally:
            thread.run(playwright.stop)
    finally:
        thread.close()


def session_cookie(member: Member, url: str) -> dict[str, Any]:
    """A signed-in session for ``member``, as a browser cookie for ``url``."""
    client = Client()
    client.force_login(member)
    name = settings.SESSION_COOKIE_NAME
    return {"name": name, "value": client.cookies[name].value, "url": url}


@pytest.fixture
def open_page(browser, live_server_url) -> Iterator[Callable[..., Any]]:
    """Open a page in a new browser context: signed in as ``member`` when given. The page is
    a proxy (tests/e2e/browser.py): use it as a Playwright page, with ``expect`` from there.

    Uncaught JavaScript errors on any page fail the test.
    """
    expect.set_options(timeout=15_000)
    contexts = []
    errors: list[str] = []

    def open_(
        path: str,
        member: Member | None = None,
        *,
        viewport: dict[str, int] = DESKTOP,
        color_scheme: str = "light",
        init_script: str | None = None,
        clock: bool = False,
        wait: bool = True,
        **options: Any,
    ) -> Any:
        context = browser.new_context(
            base_url=live_server_url, viewport=viewport, color_scheme=color_scheme, **options
        )
        contexts.append(context)
        if member is not None:
            context.add_cookies([session_cookie(member, live_server_url)])
        if init_script:
            context.add_init_script(init_script)
        if clock:  # a clock the test can move on (page.clock.fast_forward)
            context.clock.install()
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(f"{page.url}: {error}"))
        page.goto(path)
        if wait:
            expect(page.locator("#match")).to_have_attribute("data-synced", "yes")
        return page

    yield open_
    for context in contexts:
        context.close()
    assert errors == [], errors
