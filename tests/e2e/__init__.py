"""Browser tests: Debian's Chromium, driven by Playwright, against Daphne serving the site.

``application`` is what the tests' Daphne serves: ``wordduel.asgi.application`` with the
static files (``board.js``, the CSS) served in front of it, as ``runserver`` and Django's own
``StaticLiveServerTestCase`` do. It is built on the first connection, so importing this
package (as pytest does) loads no Django application.
"""

from __future__ import annotations

from functools import cache
from typing import Any


@cache
def _site() -> Any:
    from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler

    from wordduel.asgi import application as site

    return ASGIStaticFilesHandler(site)


async def application(scope: dict[str, Any], receive: Any, send: Any) -> None:
    await _site()(scope, receive, send)
