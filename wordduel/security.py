"""Security headers, and a Daphne access log that keeps viewing keys out of log files.

* :class:`ContentSecurityPolicyMiddleware` sends ``Content-Security-Policy`` (the
  ``CSP_DIRECTIVES`` setting) with every response. Scripts run only from our own origin or
  inline with this request's nonce, so markup that slipped into a page cannot run script.
  The nonce is ``request.csp_nonce``; an inline script carries it as
  ``<script nonce="{{ request.csp_nonce }}">``.
* :func:`run_daphne` is the ``daphne`` command with the values of secret query parameters
  (``?key=``, a members-only match's viewing key) redacted from its access log. Plain
  ``daphne`` writes every request line, query string and all, to standard output.
  Run it as ``python -m wordduel.security -b 0.0.0.0 -p 8000 wordduel.asgi:application``.
"""

from __future__ import annotations

import logging
import secrets
import sys
from collections.abc import Callable
from urllib.parse import parse_qsl, urlencode

from daphne.access import AccessLogGenerator
from django.conf import settings
from django.http import HttpRequest, HttpResponse

#: Query parameters whose values never reach an access log.
SECRET_PARAMETERS = frozenset({"key"})
REDACTED = "[redacted]"


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
    """``GET /matches/7/?key=abc`` -> ``GET /matches/7/?key=[redacted]``; others unchanged."""
    head, separator, query = request.partition("?")
    if not separator:
        return request
    query, space, tail = query.partition(" ")  # "GET /p?q HTTP/1.1" style lines, too
    try:
        pairs = parse_qsl(query, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        return f"{head}?{REDACTED}{space}{tail}"  # unparseable: keep none of it
    cleaned = [(name, REDACTED if name in SECRET_PARAMETERS else value) for name, value in pairs]
    return f"{head}?{urlencode(cleaned, safe='[]')}{space}{tail}"


class RedactingAccessLog(AccessLogGenerator):
    """Daphne's access log, the values of secret query parameters redacted, written through
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


def run_daphne(argv: list[str] | None = None) -> None:
    """The ``daphne`` command line, its access log redacted (see the module's docstring)."""
    from daphne import cli  # noqa: PLC0415 - Twisted is loaded only by the serving process

    cli.AccessLogGenerator = RedactingAccessLog  # the name cli.run() builds its log with
    if argv is not None:
        sys.argv = [sys.argv[0], *argv]
    cli.CommandLineInterface.entrypoint()


if __name__ == "__main__":
    run_daphne()
