"""A live server and a browser for the browser tests.

Daphne runs once per session as a subprocess on a free port, against this run's test
database and Redis prefix, so the websockets go through the real channel layer. Each test
makes its own data (transactional tests flush the tables after each test; the server keeps
no state of its own between them) and its own browser contexts, closed after the test.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client

from accounts.models import Member
from tests.processes import spawn

ROOT = Path(__file__).resolve().parents[2]
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


def _listening_socket() -> socket.socket:
    """A loopback socket bound to a port of its own and listening, for Daphne to adopt.

    Handed over by its descriptor (``daphne --fd``) rather than by a port number that was
    free a moment ago: each xdist worker starts its own Daphne, and with a port number
    the two could race for one port, the loser's tests then talking to the other worker's
    server and database.
    """
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(128)
    listener.set_inheritable(True)
    return listener


def _server_env(port: int) -> dict[str, str]:
    """The test database and this run's Redis prefixes, as the settings read them."""
    db = connection.settings_dict
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    env = dict(os.environ)
    env["DATABASE_URL"] = (
        f"postgres://{db['USER']}{password}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}"
        f"/{db['NAME']}"
    )
    env["CHANNEL_LAYER_PREFIX"] = os.environ["CHANNEL_LAYER_PREFIX"]
    cache_prefix = settings.CACHES.get("default", {}).get("KEY_PREFIX")
    if cache_prefix:
        env["CACHE_PREFIX"] = cache_prefix
    env["CLOCK_IN_PROCESS"] = "0"  # the tests open fixtures themselves, when they mean to
    env["PYTHONUNBUFFERED"] = "1"
    env["WEBSOCKET_ALLOWED_ORIGINS"] = f"http://127.0.0.1:{port}"  # the pages' own origin
    return env


@pytest.fixture(scope="session")
def live_server_url(django_db_setup) -> Iterator[str]:
    """Daphne serving the site (and its static files) on a free port, for the whole session."""
    listener = _listening_socket()
    port = listener.getsockname()[1]
    log_dir = Path(tempfile.mkdtemp(prefix="wordduel-e2e-"))
    log = log_dir / "daphne.log"
    with log.open("wb") as out, listener:
        process = spawn(
            [
                str(Path(sys.executable).parent / "daphne"),
                "--fd",
                str(listener.fileno()),
                "wordduel.asgi:application",
            ],
            cwd=ROOT,
            env=_server_env(port),
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            pass_fds=(listener.fileno(),),
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            assert process.poll() is None, f"Daphne exited:\n{log.read_text()}"
            try:
                with urllib.request.urlopen(f"{url}/healthz/web", timeout=2):  # noqa: S310
                    break
            except OSError:
                assert time.monotonic() < deadline, f"Daphne did not answer:\n{log.read_text()}"
                time.sleep(0.2)
        yield url
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)
        shutil.rmtree(log_dir, ignore_errors=True)


@pytest.fixture(scope="module")
def browser(live_server_url) -> Iterator[Any]:
    """Chromium for one test module.

    Playwright's sync API keeps an event loop running in this thread, and Django refuses
    ORM calls when it sees one. The tests' ORM calls are plain synchronous code between
    browser steps, so the check is lifted while the browser runs, and only then.
    """
    if not Path(CHROMIUM).exists():
        pytest.fail("Debian's chromium is not installed: run `make chromium` (make test does)")
    from playwright.sync_api import sync_playwright

    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            chromium = playwright.chromium.launch(
                executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
            )
            yield chromium
            chromium.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


def session_cookie(member: Member, url: str) -> dict[str, Any]:
    """A signed-in session for ``member``, as a browser cookie for ``url``."""
    client = Client()
    client.force_login(member)
    name = settings.SESSION_COOKIE_NAME
    return {"name": name, "value": client.cookies[name].value, "url": url}


@pytest.fixture
def open_page(browser, live_server_url) -> Iterator[Callable[..., Any]]:
    """Open a page in a new browser context: signed in as ``member`` when given.

    Uncaught JavaScript errors on any page fail the test.
    """
    from playwright.sync_api import expect

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
