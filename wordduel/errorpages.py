"""The site's own "Not found" page, in the quick start (DEBUG) as in production.

With DEBUG on, Django answers a missing page with its technical 404, which lists the URL
patterns and never offers the sign-in. ``make run`` and the test suite run with DEBUG on, so
a newcomer opening a members-only match without its key met that page. This middleware
renders ``templates/404.html`` instead: for an ``Http404`` a view raised (a match the visitor
may not watch reads exactly as one that does not exist) and, in DEBUG, for an address no
pattern matches. Under ``/api/`` the answers stay JSON (``wordduel.middleware``).
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from wordduel.middleware import API_PREFIX

#: Addresses whose missing page speaks of what lives there, not of matches and their
#: viewing links: an imported game is opened by its owner or with its share link.
IMPORTS_PREFIX = "/imports/"


def not_found_page(request: HttpRequest) -> HttpResponse:
    """The site's 404 page: the way home and, for a signed-out visitor, the sign-in; under
    ``/imports/`` it speaks of imported games and their share links."""
    context = {
        "request_path": request.path,
        "imported_game": request.path.startswith(IMPORTS_PREFIX),
    }
    return render(request, "404.html", context, status=404)


class OwnNotFoundPage:
    """Answer a missing page with the site's own 404 page, DEBUG or not."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        unresolved = getattr(request, "resolver_match", None) is None
        if (
            settings.DEBUG
            and response.status_code == 404
            and unresolved
            and not request.path.startswith(API_PREFIX)
        ):
            return not_found_page(request)
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, Http404) and not request.path.startswith(API_PREFIX):
            return not_found_page(request)
        return None
