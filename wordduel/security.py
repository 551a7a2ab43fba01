"""Security headers, and a Daphne access log that keeps the secrets of addresses out of logs.

* :class:`ContentSecurityPolicyMiddleware` sends ``Content-Security-Policy`` (the
  ``CSP_DIRECTIVES`` setting) with every response. Scripts run only from our own origin or
  inline with this request's nonce, so markup that slipped into a page cannot run script.
  The nonce is ``request.csp_nonce``; an inline script carries it as
  ``<script nonce="{{ request.csp_nonce }}">``.
* :class:`RedactingAccessLog` is Daphne's access log with every secret of an address
  redacted (viewing, share and invitation keys, calendar, confirmation, unsubscribe and
  reset tokens: ``common/secret_urls.py``, the one list). Plain ``daphne``
  writes every request line, query string and all, to standard output; the web process's
  command, ``python -m wordduel.serve``, logs through this one.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable

from daphne.access import AccessLogGenerator
from django.conf import settings
from django.http import HttpRequest, HttpResponse

from common import secret_urls


def content_security_policy(nonce: str) -> str:
    """The header's value for one response, ``nonce`` allowed in script-src."""
    directives = {
        name: list(sources)
        for name, sources in settings.CSP_DIRECTIVES.items()  # the policy: wordduel/settings.py
    }
    directives.setdefault("script-src", ["'self'"]).append(f"'nonce-{nonce}'")
    return "; ".join(f"{name} {' '.join(sources)}" for name, sources in directives.items())


class ContentSecurityPolicyMiddleware:
    """A fresh nonce per request (``request.csp_nonce``) and the policy on every response.

    ``CSP_REPORT_ONLY = True`` sends it as ``Content-Security-Policy-Report-Only`` instead,
    for trying a stricter policy out. A response that already has a policy keeps its own.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        nonce = secrets.token_urlsafe(18)
        request.csp_nonce = nonce  # type: ignore[attr-defined]
        response = self.get_response(request)
        header = (
            "Content-Security-Policy-Report-Only"
            if getattr(settings, "CSP_REPORT_ONLY", False)
            else "Content-Security-Policy"
        )
        if header not in response:
            response[header] = content_security_policy(nonce)
        return response


# ---------------------------------------------------------------- Daphne's access log


def redact_request_line(request: str) -> str:
    """``GET /matches/7/?key=abc`` -> ``GET /matches/7/?key=[redacted]``: every secret of
    an address (``common/secret_urls.py``) taken out; the rest unchanged."""
    return secret_urls.redact(request)


class RedactingAccessLog(AccessLogGenerator):
    """Daphne's access log, the secrets of its addresses redacted, written through
    logging (logger ``wordduel.access``): a JSON line in production like every other."""

    logger = logging.getLogger("wordduel.access")

    def write_entry(
        self, host, date, request, status=None, length=None, ident=None, user=None
    ) -> None:
        request = redact_request_line(request)
        self.logger.info(
            "%s %s %s %s",
            host,
            request,
            status or "-",
            length or "-",
            extra={"client": host, "request": request, "status": status, "length": length},
        )
